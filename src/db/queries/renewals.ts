import { createHash } from "node:crypto";
import type {
  AwardEvidence,
  BuyerEvidence,
  ComputedSignal,
  TenderEvidence,
} from "../../analytics/renewals/rules.ts";
import type { Queryable } from "../client.ts";

/**
 * Storage of renewal signals (migrations 0016, 0021): the evidence the heuristic reads, the replacement it
 * writes per buyer or per buyer x CPV division, the dirty marks, and backtest runs.
 */

const RECOMPUTE_LOCK_KEY = 4_242_016;

/** Serialises signal recomputations (PostgreSQL: across processes) until the caller's transaction ends. */
export async function lockSignalRecompute(db: Queryable): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock($1)", [RECOMPUTE_LOCK_KEY]);
}

/**
 * Gives the caller's transaction (a recompute) 64 MB per sort or hash instead of the server's default (4 MB on
 * a stock PostgreSQL): the evidence of a few hundred buyers is tens of thousands of rows, and spilled to disk
 * the award join took 1.8 s instead of 1.1 s at 1M awards. Ends with the transaction.
 */
export async function allowRecomputeMemory(db: Queryable): Promise<void> {
  await db.query("SET LOCAL work_mem = '64MB'");
}

/** Every buyer that has a tender, ascending: the unit of a full recompute. */
export async function listBuyersWithTenders(db: Queryable): Promise<number[]> {
  const { rows } = await db.query<{ buyer_id: number }>(
    "SELECT DISTINCT buyer_id FROM tenders WHERE buyer_id IS NOT NULL ORDER BY buyer_id",
  );
  return rows.map((r) => r.buyer_id);
}

/** The CPV divisions of some of a buyer's signals: the unit of an incremental recompute. */
export interface BuyerDivisions {
  buyerId: number;
  /** Two-digit CPV divisions, ascending. */
  divisions: string[];
}

/**
 * Takes the buyer x division pairs marked since the last recompute (the marks this statement sees), grouped by
 * buyer, ascending.
 */
export async function takeDirtySignalPairs(db: Queryable): Promise<BuyerDivisions[]> {
  const { rows } = await db.query<{ buyer_id: number; divisions: string[] }>(
    `WITH taken AS (DELETE FROM renewal_signals_dirty_pairs RETURNING buyer_id, division)
     SELECT buyer_id, array_agg(division ORDER BY division) AS divisions FROM taken GROUP BY buyer_id
      ORDER BY buyer_id`,
  );
  return rows.map((r) => ({ buyerId: r.buyer_id, divisions: r.divisions }));
}

/** The pairs as two aligned arrays, for `unnest($1::bigint[], $2::text[])`. */
function pairArrays(scope: readonly BuyerDivisions[]): [number[], string[]] {
  const buyers: number[] = [];
  const divisions: string[] = [];
  for (const { buyerId, divisions: list } of scope) {
    for (const division of list) {
      buyers.push(buyerId);
      divisions.push(division);
    }
  }
  return [buyers, divisions];
}

interface AwardRow {
  buyer_id: number;
  award_id: number;
  tender_id: number;
  tender_ref: string;
  award_ref: string;
  award_date: string | null;
  start_date: string | null;
  start_date_kind: "actual" | "planned" | null;
  end_date: string | null;
  duration_months: number | null;
  framework: boolean;
  cpv: string | null;
  company_id: number | null;
  company_name: string | null;
  extension_text: string | null;
  extension_months: number | null;
  extension_end_date: string | null;
}

interface TenderRow {
  buyer_id: number;
  tender_id: number;
  ref: string;
  publication_date: string;
  divisions: string[];
}

/**
 * The evidence of these buyers, in buyer id order. Awards: those with a winner (a void result is no contract),
 * not superseded by their PLACSP twin, of tenders that search shows (tender_searchable: not linked to another
 * source's record, not annulled). Tenders: the same visibility, with a publication date. Given buyer x
 * division pairs, only the awards of those divisions and the tenders listing one of them.
 */
export async function loadBuyerEvidence(
  db: Queryable,
  scope: readonly number[] | readonly BuyerDivisions[],
): Promise<BuyerEvidence[]> {
  if (scope.length === 0) {
    return [];
  }
  const byPairs = typeof scope[0] !== "number";
  const buyerIds = byPairs
    ? (scope as readonly BuyerDivisions[]).map((pair) => pair.buyerId)
    : (scope as readonly number[]);
  // With divisions, only the awards and tenders of those divisions: a division's signals read nothing else.
  // Each buyer's divisions travel as one comma-separated text aligned with the buyer ids and are joined once per
  // buyer, so the filter is one array test per row. Joined per pair instead, the planner re-read a buyer's
  // tenders once per division (255,000 tender rows for 61,000 awards: 4.4 s of a 7 s step at 1M awards) and
  // computed each tender's divisions once per pair.
  const source = byPairs
    ? "unnest($1::bigint[], $2::text[]) AS p (buyer_id, divisions) JOIN tenders t ON t.buyer_id = p.buyer_id"
    : "tenders t";
  const buyers = byPairs ? "true" : "t.buyer_id = ANY($1::bigint[])";
  const awardPairs = byPairs
    ? "AND cpv_division(coalesce(a.cpv, t.cpv_main)) = ANY(string_to_array(p.divisions, ','))"
    : "";
  const tenderPairs = byPairs ? "AND cpv_divisions(t.cpv_all) && string_to_array(p.divisions, ',')" : "";
  const params = byPairs
    ? [buyerIds, (scope as readonly BuyerDivisions[]).map((b) => b.divisions.join(","))]
    : [buyerIds];
  const [awards, tenders] = await Promise.all([
    db.query<AwardRow>(
      `SELECT t.buyer_id, a.id AS award_id, a.tender_id, t.source_ref AS tender_ref,
              coalesce(a.source_ref, t.source_ref) AS award_ref, a.award_date, a.start_date, a.start_date_kind,
              a.end_date,
              coalesce(a.duration_months, t.duration_months) AS duration_months,
              (a.framework OR t.framework) AS framework, coalesce(a.cpv, t.cpv_main) AS cpv,
              c.id AS company_id, c.name AS company_name,
              a.extension_text, a.extension_months, a.extension_end_date
         FROM ${source}
         JOIN awards a ON a.tender_id = t.id
         LEFT JOIN companies c ON c.id = a.winner_company_id
        WHERE ${buyers}
          AND tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)
          AND NOT a.superseded
          AND (a.winner_company_id IS NOT NULL OR a.winner_name IS NOT NULL)
          ${awardPairs}
        ORDER BY t.buyer_id, a.id`,
      params,
    ),
    db.query<TenderRow>(
      `SELECT t.buyer_id, t.id AS tender_id, t.source_ref AS ref, t.publication_date,
              cpv_divisions(t.cpv_all) AS divisions
         FROM ${source}
        WHERE ${buyers}
          AND t.publication_date IS NOT NULL
          AND tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)
          ${tenderPairs}
        ORDER BY t.buyer_id, t.id`,
      params,
    ),
  ]);
  const byBuyer = new Map<number, { awards: AwardEvidence[]; tenders: TenderEvidence[] }>(
    buyerIds.map((id) => [id, { awards: [], tenders: [] }]),
  );
  for (const row of awards.rows) {
    byBuyer.get(row.buyer_id)?.awards.push({
      awardId: row.award_id,
      tenderId: row.tender_id,
      tenderRef: row.tender_ref,
      awardRef: row.award_ref,
      awardDate: row.award_date,
      startDate: row.start_date,
      startDateKind: row.start_date_kind,
      endDate: row.end_date,
      durationMonths: row.duration_months,
      framework: row.framework,
      cpv: row.cpv,
      incumbent: row.company_id === null ? null : { id: row.company_id, name: row.company_name ?? "" },
      extensionText: row.extension_text,
      extensionMonths: row.extension_months,
      extensionEndDate: row.extension_end_date,
    });
  }
  for (const row of tenders.rows) {
    byBuyer.get(row.buyer_id)?.tenders.push({
      tenderId: row.tender_id,
      ref: row.ref,
      publicationDate: row.publication_date,
      divisions: row.divisions,
    });
  }
  return [...byBuyer.entries()]
    .sort(([a], [b]) => a - b)
    .map(([buyerId, evidence]) => ({ buyerId, ...evidence }));
}

/** Deletes the signals whose window ended before `date` (retention: they are no longer forecasts). */
export async function deleteSignalsEndedBefore(db: Queryable, date: string): Promise<number> {
  const { rowCount } = await db.query("DELETE FROM renewal_signals WHERE window_end < $1::date", [date]);
  return rowCount ?? 0;
}

/** Deletes every signal (a full recompute writes them all again). */
export async function deleteAllSignals(db: Queryable): Promise<number> {
  return (await db.query("DELETE FROM renewal_signals")).rowCount ?? 0;
}

/** Deletes these signals (those of a recomputed division that are no longer derived or retained). */
export async function deleteSignalsById(db: Queryable, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) {
    return 0;
  }
  const { rowCount } = await db.query("DELETE FROM renewal_signals WHERE id = ANY($1::bigint[])", [ids]);
  return rowCount ?? 0;
}

/** The stored columns of a signal besides its id and digest, in the order `writeSignals` binds them. */
const SIGNAL_COLUMNS = [
  "basis_key",
  "signal_type",
  "cpv",
  "cpv_division",
  "buyer_id",
  "tender_id",
  "award_id",
  "predicted_date",
  "window_start",
  "window_end",
  "confidence",
  "retendered_by",
  "evidence_tender_ids",
  "basis",
  "content_hash",
] as const;

/** The signal columns, each prefixed (`excluded.`), as a comma-separated list. */
const signalColumns = (prefix = ""): string => SIGNAL_COLUMNS.map((c) => prefix + c).join(", ");

/** The basis as stored: the rule texts are the same for every signal of a type, served by withRules. */
function storedBasis(signal: ComputedSignal): string {
  const { window_rule: _window, confidence_rule: _confidence, ...stored } = signal.basis;
  return JSON.stringify(stored);
}

/**
 * A digest of everything a signal stores (migration 0024): equal digests, equal rows. Computed signals are
 * deterministic (same data and day, same bytes), so an unchanged signal has an unchanged digest. The one write
 * that bypasses it, `retendered_by` set to null when its tender is deleted, also marks the pair dirty, and the
 * recomputed signal cannot name the deleted tender, so its digest differs and the row is rewritten.
 */
export function signalContentHash(signal: ComputedSignal): string {
  return contentHash(signal, storedBasis(signal));
}

function contentHash(signal: ComputedSignal, basis: string): string {
  const stored = [
    signal.id,
    signal.basisKey,
    signal.signalType,
    signal.cpv,
    signal.cpvDivision,
    signal.buyerId,
    signal.tenderId,
    signal.awardId,
    signal.predictedDate,
    signal.windowStart,
    signal.windowEnd,
    signal.confidence,
    signal.retenderedBy,
    signal.evidenceTenderIds,
    basis,
  ];
  return createHash("sha256").update(JSON.stringify(stored)).digest("base64url");
}

/** The digests of the stored signals of these buyer x division pairs, by id (null: written before 0024). */
export async function storedSignalHashes(
  db: Queryable,
  scope: readonly BuyerDivisions[],
): Promise<Map<number, string | null>> {
  if (scope.length === 0) {
    return new Map();
  }
  const { rows } = await db.query<{ id: number | string; content_hash: string | null }>(
    `SELECT s.id, s.content_hash
       FROM renewal_signals s
       JOIN unnest($1::bigint[], $2::text[]) AS p (buyer_id, division)
         ON s.buyer_id = p.buyer_id AND s.cpv_division = p.division`,
    pairArrays(scope),
  );
  return new Map(rows.map((r) => [Number(r.id), r.content_hash]));
}

/**
 * Writes signals in one statement (callers batch them), each with its digest. `insert` expects none of them
 * stored (a full recompute, after deleting every signal); `upsert` replaces the stored row of the same id (an
 * incremental recompute, which passes only the signals whose digest changed).
 */
export async function writeSignals(
  db: Queryable,
  signals: readonly ComputedSignal[],
  mode: "insert" | "upsert",
): Promise<void> {
  if (signals.length === 0) {
    return;
  }
  const bases = signals.map(storedBasis);
  const replace =
    mode === "upsert"
      ? `ON CONFLICT (id) DO UPDATE SET (${signalColumns()}) = ROW(${signalColumns("excluded.")})`
      : "";
  await db.query(
    `INSERT INTO renewal_signals (id, ${signalColumns()})
     SELECT id, key, type, cpv, division, buyer, tender, award, predicted, ws, we, confidence, retender,
            evidence::bigint[], basis, hash
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                          $7::bigint[], $8::bigint[], $9::date[], $10::date[], $11::date[], $12::text[],
                          $13::bigint[], $14::text[], $15::jsonb[], $16::text[])
         AS u(id, key, type, cpv, division, buyer, tender, award, predicted, ws, we, confidence, retender,
              evidence, basis, hash)
     ${replace}`,
    [
      signals.map((s) => s.id),
      signals.map((s) => s.basisKey),
      signals.map((s) => s.signalType),
      signals.map((s) => s.cpv),
      signals.map((s) => s.cpvDivision),
      signals.map((s) => s.buyerId),
      signals.map((s) => s.tenderId),
      signals.map((s) => s.awardId),
      signals.map((s) => s.predictedDate),
      signals.map((s) => s.windowStart),
      signals.map((s) => s.windowEnd),
      signals.map((s) => s.confidence),
      signals.map((s) => s.retenderedBy),
      // unnest flattens a 2-D array, so each id list travels as its array literal and is cast back per row.
      signals.map((s) => `{${s.evidenceTenderIds.join(",")}}`),
      bases,
      signals.map((s, i) => contentHash(s, bases[i] ?? "")),
    ],
  );
}

export interface RenewalFilters {
  /** CPV prefix, digits only. */
  cpvPrefix: string | null;
  buyerIds: readonly number[] | null;
  /** Windows overlapping [from, to]. */
  from: string;
  to: string;
  /** 1 low, 2 medium, 3 high. */
  minConfidenceRank: number;
  includeRetendered: boolean;
  limit: number;
  offset: number;
}

export interface RenewalRecord {
  id: number;
  signal_type: string;
  cpv: string;
  buyer_id: number;
  buyer_name: string;
  buyer_nuts: string | null;
  window_start: string;
  window_end: string;
  confidence: string;
  basis: unknown;
  evidence_tender_ids: number[];
}

function renewalWhere(f: RenewalFilters): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.from, f.to, f.minConfidenceRank];
  const clauses = ["s.window_start <= $2::date", "s.window_end >= $1::date", "s.confidence_rank >= $3"];
  if (!f.includeRetendered) {
    clauses.push("s.retendered_by IS NULL");
  }
  if (f.cpvPrefix) {
    params.push(f.cpvPrefix);
    clauses.push(`s.cpv LIKE $${params.length} || '%'`);
  }
  if (f.buyerIds) {
    params.push(f.buyerIds);
    clauses.push(`s.buyer_id = ANY($${params.length}::bigint[])`);
  }
  return { sql: clauses.join(" AND "), params };
}

/**
 * One page of signals in the endpoint's order (window start, confidence high first, id), and the total.
 *
 * Plan: the matching signals are picked first, as (id, sort keys) from the window_end indexes (migration 0019:
 * an index-only range scan of the signals whose window is not over), then sorted, and only the page's rows are
 * read from the table and joined to their buyers. Left to itself the planner walks the window_start index in
 * the endpoint's order and filters "window_end >= today", which reads every past signal first (most of the
 * table: 843,558 of 940,000 on 1M synthetic awards); the MATERIALIZED CTE keeps it from doing so.
 */
export async function listRenewalSignals(
  db: Queryable,
  filters: RenewalFilters,
): Promise<{ records: RenewalRecord[]; total: number }> {
  const where = renewalWhere(filters);
  const limitAt = where.params.length + 1;
  const [page, count] = await Promise.all([
    db.query<RenewalRecord>(
      `WITH candidates AS MATERIALIZED (
         SELECT s.id, s.window_start, s.confidence_rank FROM renewal_signals s WHERE ${where.sql}
       ),
       page AS (
         SELECT c.id, c.window_start, c.confidence_rank FROM candidates c
          ORDER BY c.window_start, c.confidence_rank DESC, c.id
          LIMIT $${limitAt} OFFSET $${limitAt + 1}
       )
       SELECT s.id, s.signal_type, s.cpv, s.buyer_id, b.name AS buyer_name, b.nuts AS buyer_nuts,
              s.window_start, s.window_end, s.confidence, s.basis, s.evidence_tender_ids
         FROM page p
         JOIN renewal_signals s ON s.id = p.id
         JOIN buyers b ON b.id = s.buyer_id
        ORDER BY p.window_start, p.confidence_rank DESC, p.id`,
      [...where.params, filters.limit, filters.offset],
    ),
    db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM renewal_signals s WHERE ${where.sql}`,
      where.params,
    ),
  ]);
  return {
    // node-postgres returns int8[] elements as strings (PGlite as numbers).
    records: page.rows.map((r) => ({ ...r, evidence_tender_ids: r.evidence_tender_ids.map(Number) })),
    total: count.rows[0]?.total ?? 0,
  };
}

/** The upstream notices of these tenders, in the order of the ids given. */
export async function tenderNotices(
  db: Queryable,
  tenderIds: readonly number[],
): Promise<{ id: number; source: string; source_ref: string; url: string | null }[]> {
  if (tenderIds.length === 0) {
    return [];
  }
  const { rows } = await db.query<{ id: number; source: string; source_ref: string; url: string | null }>(
    "SELECT id, source, source_ref, url FROM tenders WHERE id = ANY($1::bigint[])",
    [tenderIds],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return tenderIds.flatMap((id) => byId.get(id) ?? []);
}

export interface BacktestRecord {
  run_at: Date;
  as_of: string[];
  result: unknown;
}

export async function insertBacktest(
  db: Queryable,
  run: { runAt: Date; asOf: readonly string[]; result: unknown },
): Promise<void> {
  await db.query("INSERT INTO renewal_backtests (run_at, as_of, result) VALUES ($1, $2::date[], $3::jsonb)", [
    run.runAt,
    run.asOf,
    JSON.stringify(run.result),
  ]);
}

/** The newest backtest run, or undefined when none has been stored. */
export async function latestBacktest(db: Queryable): Promise<BacktestRecord | undefined> {
  const { rows } = await db.query<BacktestRecord>(
    "SELECT run_at, as_of::text[] AS as_of, result FROM renewal_backtests ORDER BY run_at DESC, id DESC LIMIT 1",
  );
  return rows[0];
}

/** The size and reach of the data a backtest runs on. */
export async function backtestCorpus(db: Queryable): Promise<{
  awards: number;
  tenders: number;
  buyers: number;
  data_until: string | null;
  synthetic_tenders: number;
}> {
  const { rows } = await db.query<{
    awards: number;
    tenders: number;
    buyers: number;
    data_until: string | null;
    synthetic_tenders: number;
  }>(
    `SELECT (SELECT count(*)::int FROM awards WHERE NOT superseded) AS awards,
            count(*)::int AS tenders,
            count(DISTINCT buyer_id)::int AS buyers,
            max(publication_date) AS data_until,
            count(*) FILTER (WHERE is_synthetic)::int AS synthetic_tenders
       FROM tenders
      WHERE tender_searchable(linked_to, deleted_at, deletion_reason)`,
  );
  return rows[0] ?? { awards: 0, tenders: 0, buyers: 0, data_until: null, synthetic_tenders: 0 };
}
