import type { Queryable } from "../client.ts";
import { LISTED_CONFIDENCE_RANK } from "./renewals.ts";

/** The reads behind GET /v1/demo: the newest tender, one open renewal signal, and per-source coverage. */

export interface SampleTenderRow {
  id: number;
  title: string | null;
  buyer_name: string | null;
  buyer_country: string | null;
  cpv_main: string | null;
  estimated_value: number | null;
  currency: string | null;
  publication_date: string;
  source: string;
  source_ref: string;
  url: string | null;
}

/**
 * The most recently published tender that search shows (newest publication date, then highest id): the first
 * dated tender row of the search relation in list order (its tender rows are the searchable tenders, dated by
 * publication), one step of the list index, where ordering `tenders` itself read the whole table (480 ms at
 * 718,000 tenders: GET /v1/demo is free, so it must stay cheap).
 */
export async function newestTender(db: Queryable): Promise<SampleTenderRow | undefined> {
  const { rows } = await db.query<SampleTenderRow>(
    `SELECT t.id, t.title, b.name AS buyer_name, b.country AS buyer_country, t.cpv_main, t.estimated_value,
            t.currency, t.publication_date, t.source, t.source_ref, t.url
       FROM (SELECT s.id FROM search_rows s
              WHERE s.kind = 'tender' AND s.date IS NOT NULL
              ORDER BY s.date DESC NULLS LAST, s.id DESC
              LIMIT 1) AS newest
       JOIN tenders t ON t.id = newest.id
       LEFT JOIN buyers b ON b.id = t.buyer_id`,
  );
  return rows[0];
}

export interface SampleSignalRow {
  id: number;
  signal_type: string;
  confidence: string;
  basis: unknown;
  tender_title: string | null;
  award_end_date: string | null;
  incumbent: string | null;
  source: string;
  source_ref: string;
  url: string | null;
}

/**
 * An open signal (not re-tendered, window not over on `today`): with `started`, the one whose window started
 * most recently on or before today; otherwise the one whose window starts soonest after today. Optionally of
 * one type. Both walk the open-signal window index from today.
 */
export async function openSignalNear(
  db: Queryable,
  today: string,
  /** `listedOnly`: only signals GET /v1/renewals lists by default (LISTED_CONFIDENCE_RANK and up). */
  options: { started: boolean; signalType: string | null; listedOnly: boolean },
): Promise<SampleSignalRow | undefined> {
  const { rows } = await db.query<SampleSignalRow>(
    `SELECT s.id, s.signal_type, s.confidence, s.basis, t.title AS tender_title, a.end_date AS award_end_date,
            coalesce(c.name, a.winner_name) AS incumbent, t.source, t.source_ref, t.url
       FROM renewal_signals s
       JOIN awards a ON a.id = s.award_id
       JOIN tenders t ON t.id = s.tender_id
       LEFT JOIN companies c ON c.id = a.winner_company_id
      WHERE s.retendered_by IS NULL
        AND s.window_end >= $1::date
        AND s.confidence_rank >= $3
        AND ${options.started ? "s.window_start <= $1::date" : "s.window_start > $1::date"}
        AND ($2::text IS NULL OR s.signal_type = $2)
      ORDER BY ${
        options.started
          ? "s.window_start DESC, s.confidence_rank DESC, s.id DESC"
          : "s.window_start, s.confidence_rank DESC, s.id"
      }
      LIMIT 1`,
    [today, options.signalType, options.listedOnly ? LISTED_CONFIDENCE_RANK : 1],
  );
  return rows[0];
}

export interface SourceCoverageRow {
  source: string;
  records: number;
  indexed_from: string | null;
  indexed_to: string | null;
  last_ingestion: Date | null;
}

/**
 * Per source: tenders held and the publication dates they span (as of the last ingest run: source_coverage),
 * and the end of the last successful ingest run.
 */
export async function sourceCoverage(db: Queryable): Promise<SourceCoverageRow[]> {
  const { rows } = await db.query<SourceCoverageRow>(
    `SELECT s.source, coalesce(c.records, 0)::int AS records, c.indexed_from, c.indexed_to,
            (SELECT max(finished_at) FROM ingest_runs r WHERE r.source = s.source AND r.status = 'succeeded')
              AS last_ingestion
       FROM (VALUES ('placsp'), ('ted')) AS s(source)
       LEFT JOIN source_coverage c ON c.source = s.source
      ORDER BY s.source`,
  );
  return rows;
}

/** Recounts what each source holds; every source appears (0 when it holds nothing). */
export async function refreshSourceCoverage(db: Queryable, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO source_coverage AS c (source, records, indexed_from, indexed_to, refreshed_at)
     SELECT s.source, count(t.id), min(t.publication_date), max(t.publication_date), $1
       FROM (VALUES ('placsp'), ('ted')) AS s(source)
       LEFT JOIN tenders t ON t.source = s.source
      GROUP BY s.source
     ON CONFLICT (source) DO UPDATE
        SET records = excluded.records, indexed_from = excluded.indexed_from,
            indexed_to = excluded.indexed_to, refreshed_at = excluded.refreshed_at`,
    [at],
  );
}
