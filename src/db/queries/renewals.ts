import { createHash } from "node:crypto";
import {
  type AwardEvidence,
  type BuyerEvidence,
  type ComputedSignal,
  type TenderEvidence,
  tenderClasses,
  tenderDivisions,
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

/**
 * Turns JIT compilation off for the rest of the caller's transaction (an incremental recompute). The pair
 * evidence is a nested loop per buyer whose estimated cost (millions, for a few hundred buyers) passes every JIT
 * threshold, and compiling it with inlining and optimisation took 0.37 s of a 1.5 s read at 1M awards, for a
 * plan that touches 60,000 tenders. Ends with the transaction.
 */
export async function disableJit(db: Queryable): Promise<void> {
  await db.query("SET LOCAL jit = off");
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
 * buyer, ascending: every buyer's, or the first `buyers` buyers' (ascending) when given.
 */
export async function takeDirtySignalPairs(
  db: Queryable,
  buyers: number | null = null,
): Promise<BuyerDivisions[]> {
  const { rows } = await db.query<{ buyer_id: number; divisions: string[] }>(
    `WITH picked AS (
       SELECT DISTINCT buyer_id FROM renewal_signals_dirty_pairs ORDER BY buyer_id LIMIT $1
     ),
     taken AS (
       DELETE FROM renewal_signals_dirty_pairs d USING picked p WHERE d.buyer_id = p.buyer_id
       RETURNING d.buyer_id, d.division
     )
     SELECT buyer_id, array_agg(division ORDER BY division) AS divisions FROM taken GROUP BY buyer_id
      ORDER BY buyer_id`,
    [buyers],
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
  tender_publication_date: string | null;
  tender_title: string | null;
  procedure_type: string | null;
}

interface TenderRow {
  buyer_id: number;
  tender_id: number;
  tender_ref: string;
  publication_date: string;
  cpv_all: (string | null)[];
  title: string | null;
}

/** A row of the pair evidence: a tender, with one of its awards of the pair's divisions or none. */
type PairRow = Omit<AwardRow, "award_id"> &
  Omit<TenderRow, "publication_date"> & {
    award_id: number | null;
    publication_date: string | null;
    /** Published and listing one of the pair's divisions: a possible re-tender. */
    listed: boolean;
  };

/** The award columns of the evidence, from `tenders t`, `awards a` and `companies c`. */
const AWARD_COLUMNS = `a.id AS award_id, coalesce(a.source_ref, t.source_ref) AS award_ref, a.award_date,
       a.start_date, a.start_date_kind, a.end_date,
       coalesce(a.duration_months, t.duration_months) AS duration_months,
       (a.framework OR t.framework) AS framework, coalesce(a.cpv, t.cpv_main) AS cpv,
       c.id AS company_id, c.name AS company_name,
       a.extension_text, a.extension_months, a.extension_end_date,
       t.publication_date AS tender_publication_date, t.title AS tender_title, t.procedure_type`;

/** The conditions on an award of `tenders t` that the evidence uses (besides its tender's visibility). */
const AWARD_USED = "NOT a.superseded AND (a.winner_company_id IS NOT NULL OR a.winner_name IS NOT NULL)";

function awardEvidence(row: Omit<AwardRow, "buyer_id"> & { award_id: number }): AwardEvidence {
  return {
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
    tenderPublicationDate: row.tender_publication_date,
    tenderTitle: row.tender_title,
    competed: row.procedure_type !== "minor-contract",
  };
}

function tenderEvidence(row: TenderRow): TenderEvidence {
  return {
    tenderId: row.tender_id,
    ref: row.tender_ref,
    publicationDate: row.publication_date,
    divisions: tenderDivisions(row.cpv_all),
    classes: tenderClasses(row.cpv_all),
    title: row.title,
  };
}

/** The evidence gathered per buyer, in buyer id order, each buyer's awards and tenders in id order. */
function byBuyerId(
  buyerIds: readonly number[],
  fill: (of: (buyerId: number) => { awards: AwardEvidence[]; tenders: TenderEvidence[] } | undefined) => void,
): BuyerEvidence[] {
  const byBuyer = new Map<number, { awards: AwardEvidence[]; tenders: TenderEvidence[] }>(
    buyerIds.map((id) => [id, { awards: [], tenders: [] }]),
  );
  fill((buyerId) => byBuyer.get(buyerId));
  return [...byBuyer.entries()]
    .sort(([a], [b]) => a - b)
    .map(([buyerId, evidence]) => {
      evidence.awards.sort((a, b) => a.awardId - b.awardId);
      evidence.tenders.sort((a, b) => a.tenderId - b.tenderId);
      return { buyerId, ...evidence };
    });
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
  if (typeof scope[0] !== "number") {
    return loadPairEvidence(db, scope as readonly BuyerDivisions[]);
  }
  const buyerIds = scope as readonly number[];
  const [awards, tenders] = await Promise.all([
    db.query<AwardRow>(
      `SELECT t.buyer_id, a.tender_id, t.source_ref AS tender_ref, ${AWARD_COLUMNS}
         FROM tenders t
         JOIN awards a ON a.tender_id = t.id
         LEFT JOIN companies c ON c.id = a.winner_company_id
        WHERE t.buyer_id = ANY($1::bigint[])
          AND tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)
          AND ${AWARD_USED}`,
      [buyerIds],
    ),
    db.query<TenderRow>(
      `SELECT t.buyer_id, t.id AS tender_id, t.source_ref AS tender_ref, t.publication_date, t.cpv_all, t.title
         FROM tenders t
        WHERE t.buyer_id = ANY($1::bigint[])
          AND t.publication_date IS NOT NULL
          AND tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)`,
      [buyerIds],
    ),
  ]);
  return byBuyerId(buyerIds, (of) => {
    for (const row of awards.rows) {
      of(row.buyer_id)?.awards.push(awardEvidence(row));
    }
    for (const row of tenders.rows) {
      of(row.buyer_id)?.tenders.push(tenderEvidence(row));
    }
  });
}

/** A CPV division as the marks and the rules name it: two digits (cpv_division, cpv_divisions). */
const DIVISION = /^[0-9]{2}$/;

/**
 * The evidence of buyer x division pairs (an incremental recompute): the awards of those divisions and the
 * tenders listing one of them, read in one statement per buyer rather than two scans of `tenders`.
 *
 * The buyers an ingest run touches own a small part of the tenders (10,000 new entries at 1M awards: 405
 * buyers, 61,000 of 725,000 tenders), so each buyer's tenders are read through tenders_buyer_idx and its awards
 * through awards_tender_idx, and each tender once, with its awards of the pair's divisions left-joined (no
 * award: the tender alone, when it is a possible re-tender). The planner cannot see that from the buyer array
 * (it estimated 380,000 rows and scanned `tenders` twice, in two parallel statements, computing cpv_divisions
 * for every tender); LATERAL ... OFFSET 0 keeps it per buyer, where an index is the only sensible plan. On the
 * marks of that ingest: 2.48 s before, 1.44 s after (medians of 5, alternated, same rows); with every buyer in
 * every division, 19.4 s before and 14.8 s after (docs/signals.md).
 *
 * A tender's divisions are tested on its stored `cpv_prefixes`, whose two-character elements are exactly the
 * `cpv_divisions` of its codes (every code's first two characters; a division is two digits), and that test
 * sits in an OR with the award, which no index on `tenders` can answer: a per-buyer plan that took it to the GIN
 * index on cpv_prefixes read 600,000 index entries per buyer (25 s).
 */
async function loadPairEvidence(db: Queryable, scope: readonly BuyerDivisions[]): Promise<BuyerEvidence[]> {
  const buyerIds = scope.map((pair) => pair.buyerId);
  // Each buyer's divisions travel as one comma-separated text aligned with the buyer ids. Anything but two
  // digits could match no award (cpv_division) and no tender (cpv_divisions) before; against cpv_prefixes a
  // longer code would, so it is left out.
  const divisions = scope.map((pair) => pair.divisions.filter((d) => DIVISION.test(d)).join(","));
  const { rows } = await db.query<PairRow>(
    `SELECT p.buyer_id, e.*
       FROM unnest($1::bigint[], $2::text[]) AS p (buyer_id, divisions)
      CROSS JOIN LATERAL (
        SELECT t.id AS tender_id, t.source_ref AS tender_ref, t.publication_date, t.cpv_all, t.title,
               (t.publication_date IS NOT NULL AND t.cpv_prefixes && string_to_array(p.divisions, ',')) AS listed,
               ${AWARD_COLUMNS}
          FROM tenders t
          LEFT JOIN awards a ON a.tender_id = t.id AND ${AWARD_USED}
                            AND cpv_division(coalesce(a.cpv, t.cpv_main)) = ANY(string_to_array(p.divisions, ','))
          LEFT JOIN companies c ON c.id = a.winner_company_id
         WHERE t.buyer_id = p.buyer_id
           AND tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)
           AND (a.id IS NOT NULL
                OR (t.publication_date IS NOT NULL AND t.cpv_prefixes && string_to_array(p.divisions, ',')))
        OFFSET 0
      ) AS e`,
    [buyerIds, divisions],
  );
  return byBuyerId(buyerIds, (of) => {
    // A tender with several awards of the divisions comes once per award.
    const listed = new Set<number>();
    for (const row of rows) {
      const evidence = of(row.buyer_id);
      if (row.award_id !== null) {
        evidence?.awards.push(awardEvidence({ ...row, award_id: row.award_id }));
      }
      if (row.listed && row.publication_date !== null && !listed.has(row.tender_id)) {
        listed.add(row.tender_id);
        evidence?.tenders.push(tenderEvidence({ ...row, publication_date: row.publication_date }));
      }
    }
  });
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

/** The basis as stored: the rule texts and measured rates are the same for every signal of a type, served by withRules. */
function storedBasis(signal: ComputedSignal): string {
  const {
    window_rule: _window,
    confidence_rule: _confidence,
    confidence_measured: _measured,
    ...stored
  } = signal.basis;
  return JSON.stringify(stored);
}

/**
 * A digest of everything a signal stores (migration 0024): equal digests, equal rows. Computed signals are
 * deterministic (same data and day, same bytes), so an unchanged signal has an unchanged digest. The one write
 * that bypasses it, `retendered_by` set to null when its tender is deleted, also marks the pair dirty, and the
 * recomputed signal cannot name the deleted tender, so its digest differs and the row is rewritten.
 */
export function signalContentHash(signal: ComputedSignal): string {
  return storedForm(signal).hash;
}

/**
 * A computed signal's stored basis and digest, computed once per signal object: an incremental recompute
 * digests every signal to compare it and then writes the changed ones with the same digest (hashing 11,000
 * signals took 0.13–0.2 s at 1M awards, two thirds of them again for the write). Signals are not changed once
 * computed.
 */
const storedForms = new WeakMap<ComputedSignal, { basis: string; hash: string }>();

function storedForm(signal: ComputedSignal): { basis: string; hash: string } {
  let form = storedForms.get(signal);
  if (!form) {
    const basis = storedBasis(signal);
    form = { basis, hash: contentHash(signal, basis) };
    storedForms.set(signal, form);
  }
  return form;
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
  // Per pair through renewal_signals_buyer_idx (LATERAL ... OFFSET 0 keeps it so), reading only the pairs' rows:
  // joined as a whole, the planner sorted a parallel scan of the whole table (11,000 of 76,000 rows at 1M
  // awards: 0.24 s when the table was not in shared buffers, 17 ms when it was; per pair, 17-21 ms).
  const { rows } = await db.query<{ id: number | string; content_hash: string | null }>(
    `SELECT s.id, s.content_hash
       FROM unnest($1::bigint[], $2::text[]) AS p (buyer_id, division)
      CROSS JOIN LATERAL (
        SELECT s.id, s.content_hash FROM renewal_signals s
         WHERE s.buyer_id = p.buyer_id AND s.cpv_division = p.division
        OFFSET 0
      ) AS s`,
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
  const forms = signals.map(storedForm);
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
      forms.map((f) => f.basis),
      forms.map((f) => f.hash),
    ],
  );
}

/**
 * The confidence rank (1 low, 2 medium, 3 high) from which a signal is listed where no reader asks otherwise:
 * GET /v1/renewals by default, the research brief, the demo and the opportunity score. Low-confidence signals
 * showed no skill over a random window on real history (docs/signals.md).
 */
export const LISTED_CONFIDENCE_RANK = 2;

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

/**
 * The newest backtest run of the current result shape (version 2: skill against a same-width baseline), or
 * undefined when none has been stored. Older runs scored another heuristic with another rule: not reported.
 */
export async function latestBacktest(db: Queryable): Promise<BacktestRecord | undefined> {
  const { rows } = await db.query<BacktestRecord>(
    `SELECT run_at, as_of::text[] AS as_of, result FROM renewal_backtests
      WHERE result->>'version' = '2' ORDER BY run_at DESC, id DESC LIMIT 1`,
  );
  return rows[0];
}

/** The size of the data a backtest runs on. */
export async function backtestCorpus(db: Queryable): Promise<{
  awards: number;
  tenders: number;
  buyers: number;
  synthetic_tenders: number;
}> {
  const { rows } = await db.query<{
    awards: number;
    tenders: number;
    buyers: number;
    synthetic_tenders: number;
  }>(
    `SELECT (SELECT count(*)::int FROM awards WHERE NOT superseded) AS awards,
            count(*)::int AS tenders,
            count(DISTINCT buyer_id)::int AS buyers,
            count(*) FILTER (WHERE is_synthetic)::int AS synthetic_tenders
       FROM tenders
      WHERE tender_searchable(linked_to, deleted_at, deletion_reason)`,
  );
  return rows[0] ?? { awards: 0, tenders: 0, buyers: 0, synthetic_tenders: 0 };
}

/**
 * Each source's coverage end derived from its data: the last day of the last month whose count of published
 * tenders is at least a quarter of the source's median month. The maximum publication date is no coverage end:
 * one stray late notice (or a late batch) would move it by months or years.
 */
export async function sourceCoverageEnds(db: Queryable): Promise<Record<string, string>> {
  const { rows } = await db.query<{ source: string; coverage_end: string }>(
    `WITH months AS (
       SELECT source, date_trunc('month', publication_date)::date AS month, count(*) AS tenders
         FROM tenders
        WHERE publication_date IS NOT NULL AND tender_searchable(linked_to, deleted_at, deletion_reason)
        GROUP BY source, month
     ),
     typical AS (
       SELECT source, percentile_cont(0.5) WITHIN GROUP (ORDER BY tenders) AS median FROM months GROUP BY source
     )
     SELECT m.source, (max(m.month) + interval '1 month' - interval '1 day')::date::text AS coverage_end
       FROM months m JOIN typical t USING (source)
      WHERE m.tenders >= t.median / 4
      GROUP BY m.source
      ORDER BY m.source`,
  );
  return Object.fromEntries(rows.map((r) => [r.source, r.coverage_end]));
}
