import type { Queryable } from "../client.ts";

/** Tender, version, award and tombstone writes of ingestion; batches as one JSON parameter each. */

export interface StoredTenderState {
  id: number;
  source_ref: string;
  upstream_updated: Date;
  raw_hash: string;
  /** The mapping version the row was written with (migration 0023); an older one is re-normalized on re-read. */
  normalization_version: number;
}

/** Locks the stored state of these tenders for the rest of the transaction (concurrent ingesters queue). */
export async function lockTenderStates(
  db: Queryable,
  source: string,
  refs: readonly string[],
): Promise<Map<string, StoredTenderState>> {
  if (refs.length === 0) {
    return new Map();
  }
  const { rows } = await db.query<StoredTenderState>(
    `SELECT id, source_ref, upstream_updated, raw_hash, normalization_version FROM tenders
      WHERE source = $1 AND source_ref = ANY($2::text[])
      ORDER BY source_ref
      FOR UPDATE`,
    [source, refs],
  );
  return new Map(rows.map((row) => [row.source_ref, row]));
}

export interface TenderWrite {
  source: string;
  source_ref: string;
  feed: string | null;
  folder_id: string | null;
  notice_type: string | null;
  publication_date: string | null;
  title: string | null;
  description: string | null;
  cpv_main: string | null;
  cpv_all: string[];
  contract_type: string | null;
  procedure_type: string | null;
  deadline: string | null;
  estimated_value: number | null;
  currency: string | null;
  nuts: string | null;
  url: string | null;
  status: string | null;
  /** The published codes behind the four coded columns (a JSON object). */
  source_codes: Readonly<Record<string, string | undefined>>;
  normalization_version: number;
  framework: boolean;
  duration_months: number | null;
  buyer_id: number | null;
  upstream_updated: string;
  raw_hash: string;
  is_synthetic: boolean;
  cross_ref: string | null;
}

const TENDER_COLUMNS = `source text, source_ref text, feed text, folder_id text, notice_type text,
  publication_date date, title text, description text, cpv_main text, cpv_all text[], contract_type text,
  procedure_type text, deadline timestamptz, estimated_value numeric, currency text, nuts text, url text,
  status text, source_codes jsonb, normalization_version smallint, framework boolean, duration_months numeric,
  buyer_id bigint, upstream_updated timestamptz, raw_hash text, is_synthetic boolean, cross_ref text`;

/**
 * Inserts new tenders and replaces the state of existing ones, but only with a strictly newer upstream version:
 * an older snapshot never overwrites a newer one, whatever order feeds and archives arrive in. The one exception
 * is a row written by an older mapping (`normalization_version`, migration 0023): the same upstream version,
 * read again, re-normalizes it. Returns the id of every written tender by source_ref.
 */
export async function upsertTenders(
  db: Queryable,
  rows: readonly TenderWrite[],
): Promise<Map<string, number>> {
  if (rows.length === 0) {
    return new Map();
  }
  const { rows: written } = await db.query<{ id: number; source_ref: string }>(
    `INSERT INTO tenders (source, source_ref, feed, folder_id, notice_type, publication_date, title, description,
                          cpv_main, cpv_all, contract_type, procedure_type, deadline, estimated_value, currency,
                          nuts, url, status, source_codes, normalization_version, framework, duration_months,
                          buyer_id, upstream_updated, raw_hash, is_synthetic, cross_ref)
     SELECT r.source, r.source_ref, r.feed, r.folder_id, r.notice_type, r.publication_date, r.title, r.description,
            r.cpv_main, coalesce(r.cpv_all, '{}'), r.contract_type, r.procedure_type, r.deadline, r.estimated_value,
            r.currency, r.nuts, r.url, r.status, r.source_codes, r.normalization_version, r.framework,
            r.duration_months, r.buyer_id, r.upstream_updated, r.raw_hash, r.is_synthetic, r.cross_ref
       FROM jsonb_to_recordset($1::jsonb) AS r(${TENDER_COLUMNS})
     ON CONFLICT (source, source_ref) DO UPDATE SET
       feed = EXCLUDED.feed, folder_id = EXCLUDED.folder_id, notice_type = EXCLUDED.notice_type,
       publication_date = EXCLUDED.publication_date, title = EXCLUDED.title, description = EXCLUDED.description,
       cpv_main = EXCLUDED.cpv_main, cpv_all = EXCLUDED.cpv_all, contract_type = EXCLUDED.contract_type,
       procedure_type = EXCLUDED.procedure_type, deadline = EXCLUDED.deadline,
       estimated_value = EXCLUDED.estimated_value, currency = EXCLUDED.currency, nuts = EXCLUDED.nuts,
       url = EXCLUDED.url, status = EXCLUDED.status, source_codes = EXCLUDED.source_codes,
       normalization_version = EXCLUDED.normalization_version, framework = EXCLUDED.framework,
       duration_months = EXCLUDED.duration_months, buyer_id = EXCLUDED.buyer_id,
       upstream_updated = EXCLUDED.upstream_updated, raw_hash = EXCLUDED.raw_hash,
       is_synthetic = EXCLUDED.is_synthetic, cross_ref = EXCLUDED.cross_ref, updated_at = now()
     WHERE tenders.upstream_updated < EXCLUDED.upstream_updated
        OR (tenders.upstream_updated = EXCLUDED.upstream_updated
            AND tenders.normalization_version < EXCLUDED.normalization_version)
     RETURNING id, source_ref`,
    [JSON.stringify(rows)],
  );
  return new Map(written.map((row) => [row.source_ref, row.id]));
}

/** Moves the version time of tenders whose newer re-publication had identical content. */
export async function touchTenders(
  db: Queryable,
  rows: readonly { id: number; upstream_updated: string }[],
): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `UPDATE tenders t SET upstream_updated = r.upstream_updated
         FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, upstream_updated timestamptz)
        WHERE t.id = r.id AND t.upstream_updated < r.upstream_updated`,
      [JSON.stringify(rows)],
    );
  }
}

export interface VersionWrite {
  tender_id: number;
  upstream_updated: string;
  /** The version's status and notice codes as published (its `source_codes`), not the common vocabulary. */
  status: string | null;
  notice_type: string | null;
  raw_hash: string;
}

/**
 * Records distinct versions; a version whose content hash is already stored for the tender only moves its time
 * back to the earliest, and takes the codes as now read (a re-read after a mapping change, migration 0023).
 */
export async function insertTenderVersions(db: Queryable, rows: readonly VersionWrite[]): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO tender_versions (tender_id, upstream_updated, status, notice_type, raw_hash)
       SELECT r.tender_id, r.upstream_updated, r.status, r.notice_type, r.raw_hash
         FROM jsonb_to_recordset($1::jsonb)
              AS r(tender_id bigint, upstream_updated timestamptz, status text, notice_type text, raw_hash text)
       ON CONFLICT (tender_id, raw_hash) DO UPDATE
         SET upstream_updated = LEAST(tender_versions.upstream_updated, EXCLUDED.upstream_updated),
             status = EXCLUDED.status, notice_type = EXCLUDED.notice_type`,
      [JSON.stringify(rows)],
    );
  }
}

export interface AwardWrite {
  tender_id: number;
  /** The tender's buyer, denormalized for per-buyer award lists. */
  buyer_id: number | null;
  award_key: string;
  source: string;
  source_ref: string | null;
  lot: string | null;
  result_code: string | null;
  award_date: string | null;
  winner_company_id: number | null;
  winner_name: string | null;
  winner_nif: string | null;
  value: number | null;
  value_payable: number | null;
  currency: string | null;
  bidders_count: number | null;
  framework: boolean;
  value_is_ceiling: boolean;
  duration_months: number | null;
  start_date: string | null;
  /** `actual` or `planned` (migration 0023); null exactly when start_date is. */
  start_date_kind: string | null;
  end_date: string | null;
  /** Announced extensions/options as published; null when none (migration 0016). */
  extension_text: string | null;
  extension_months: number | null;
  extension_end_date: string | null;
  contract_signed: boolean;
  cpv: string | null;
}

/**
 * Makes the awards of the given tenders exactly `rows`: upserts by (tender, award_key), so award ids survive
 * re-publication, and deletes awards the newest version no longer has.
 */
export async function replaceAwards(
  db: Queryable,
  tenderIds: readonly number[],
  rows: readonly AwardWrite[],
): Promise<void> {
  if (tenderIds.length === 0) {
    return;
  }
  const json = JSON.stringify(rows);
  await db.query(
    `DELETE FROM awards a
      WHERE a.tender_id = ANY($1::bigint[])
        AND NOT EXISTS (
          SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS r(tender_id bigint, award_key text)
           WHERE r.tender_id = a.tender_id AND r.award_key = a.award_key)`,
    [tenderIds, json],
  );
  if (rows.length === 0) {
    return;
  }
  await db.query(
    `INSERT INTO awards (tender_id, buyer_id, award_key, source, source_ref, lot, result_code, award_date,
                         winner_company_id, winner_name, winner_nif, value, value_payable, currency, bidders_count,
                         framework, value_is_ceiling, duration_months, start_date, start_date_kind, end_date,
                         extension_text, extension_months, extension_end_date, contract_signed, cpv)
     SELECT r.tender_id, r.buyer_id, r.award_key, r.source, r.source_ref, r.lot, r.result_code, r.award_date,
            r.winner_company_id, r.winner_name, r.winner_nif, r.value, r.value_payable, r.currency,
            r.bidders_count, r.framework, r.value_is_ceiling, r.duration_months, r.start_date, r.start_date_kind,
            r.end_date,
            r.extension_text, r.extension_months, r.extension_end_date, r.contract_signed, r.cpv
       FROM jsonb_to_recordset($1::jsonb) AS r(tender_id bigint, buyer_id bigint, award_key text, source text,
            source_ref text,
            lot text, result_code text, award_date date, winner_company_id bigint, winner_name text,
            winner_nif text, value numeric, value_payable numeric, currency text, bidders_count integer,
            framework boolean, value_is_ceiling boolean, duration_months numeric, start_date date,
            start_date_kind text, end_date date, extension_text text, extension_months numeric, extension_end_date date,
            contract_signed boolean, cpv text)
     ON CONFLICT (tender_id, award_key) DO UPDATE SET
       buyer_id = EXCLUDED.buyer_id, source_ref = EXCLUDED.source_ref, lot = EXCLUDED.lot, result_code = EXCLUDED.result_code,
       award_date = EXCLUDED.award_date, winner_company_id = EXCLUDED.winner_company_id,
       winner_name = EXCLUDED.winner_name, winner_nif = EXCLUDED.winner_nif, value = EXCLUDED.value,
       value_payable = EXCLUDED.value_payable, currency = EXCLUDED.currency,
       bidders_count = EXCLUDED.bidders_count, framework = EXCLUDED.framework,
       value_is_ceiling = EXCLUDED.value_is_ceiling, duration_months = EXCLUDED.duration_months,
       start_date = EXCLUDED.start_date, start_date_kind = EXCLUDED.start_date_kind, end_date = EXCLUDED.end_date,
       extension_text = EXCLUDED.extension_text, extension_months = EXCLUDED.extension_months,
       extension_end_date = EXCLUDED.extension_end_date,
       contract_signed = EXCLUDED.contract_signed, cpv = EXCLUDED.cpv, updated_at = now()`,
    [json],
  );
}

export interface TombstoneWrite {
  source: string;
  source_ref: string;
  deleted_at: string;
  reason: string | null;
}

export async function insertTombstones(db: Queryable, rows: readonly TombstoneWrite[]): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO tender_tombstones (source, source_ref, deleted_at, reason)
       SELECT r.source, r.source_ref, r.deleted_at, r.reason
         FROM jsonb_to_recordset($1::jsonb) AS r(source text, source_ref text, deleted_at timestamptz, reason text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}

/**
 * Derives each tender's deletion state from its tombstones: the latest tombstone not older than the tender's
 * newest version marks it (closed/cancelled, with the tombstone's type and time); a version newer than every
 * tombstone revives it. Awards are kept either way.
 */
export async function refreshDeletionState(
  db: Queryable,
  source: string,
  refs: readonly string[],
): Promise<void> {
  if (refs.length === 0) {
    return;
  }
  await db.query(
    `UPDATE tenders t SET deleted_at = d.deleted_at, deletion_reason = d.reason
       FROM (SELECT t2.id, ts.deleted_at, ts.reason
               FROM tenders t2
               LEFT JOIN LATERAL (
                 SELECT x.deleted_at, x.reason FROM tender_tombstones x
                  WHERE x.source = t2.source AND x.source_ref = t2.source_ref
                    AND x.deleted_at >= t2.upstream_updated
                  ORDER BY x.deleted_at DESC LIMIT 1) ts ON true
              WHERE t2.source = $1 AND t2.source_ref = ANY($2::text[])) d
      WHERE t.id = d.id
        AND (t.deleted_at IS DISTINCT FROM d.deleted_at OR t.deletion_reason IS DISTINCT FROM d.reason)`,
    [source, refs],
  );
}

/** True when any tender of the synthetic corpus is stored (the server then refuses real payments). */
export async function hasSyntheticTenders(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM tenders WHERE is_synthetic) AS found",
  );
  return rows[0]?.found === true;
}
