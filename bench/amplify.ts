import type { Db } from "../src/db/client.ts";

/**
 * Grows an ingested synthetic corpus to a target number of awards by replicating its tenders and awards:
 * copy k gets source refs suffixed `~k` and dates shifted back k × 53 days, and keeps the same buyers and
 * winners, so the skew of the corpus (a few big buyers and winners, many small ones) grows with it. Ingesting
 * a million awards' worth of XML through the pipeline would take ~33 GB of pages; the ingest benchmark
 * measures that path, this one measures reads.
 */
export async function amplify(db: Db, targetAwards: number, log: (line: string) => void): Promise<void> {
  const count = async (sql: string) => (await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0;
  const base = await count(
    "SELECT count(*)::int AS n FROM awards a JOIN tenders t ON t.id = a.tender_id WHERE t.source_ref NOT LIKE '%~%'",
  );
  let total = await count("SELECT count(*)::int AS n FROM awards");
  for (let k = 1; total < targetAwards; k++) {
    const started = performance.now();
    await db.query(
      `WITH src AS (
         SELECT * FROM tenders WHERE source_ref NOT LIKE '%~%'
       ), copied AS (
         INSERT INTO tenders (source, source_ref, feed, folder_id, notice_type, publication_date, title, description,
                              cpv_main, cpv_all, contract_type, procedure_type, deadline, estimated_value, currency,
                              nuts, url, status, framework, duration_months, buyer_id, upstream_updated, raw_hash,
                              is_synthetic)
         SELECT source, source_ref || '~' || $1::text, feed, folder_id, notice_type, publication_date - $2::int,
                title, description, cpv_main, cpv_all, contract_type, procedure_type, deadline - make_interval(days => $2::int),
                estimated_value, currency, nuts, url, status, framework, duration_months, buyer_id,
                upstream_updated - make_interval(days => $2::int), raw_hash, true
           FROM src
         RETURNING id, source_ref
       )
       INSERT INTO awards (tender_id, buyer_id, award_key, source, source_ref, lot, result_code, award_date,
                           winner_company_id, winner_name, winner_nif, value, value_payable, currency, bidders_count,
                           framework, value_is_ceiling, duration_months, start_date, end_date, contract_signed, cpv)
       SELECT copied.id, a.buyer_id, a.award_key, a.source, a.source_ref || '~' || $1::text, a.lot, a.result_code,
              a.award_date - $2::int, a.winner_company_id, a.winner_name, a.winner_nif, a.value, a.value_payable,
              a.currency, a.bidders_count, a.framework, a.value_is_ceiling, a.duration_months, a.start_date - $2::int,
              a.end_date - $2::int, a.contract_signed, a.cpv
         FROM awards a
         JOIN src ON src.id = a.tender_id
         JOIN copied ON copied.source_ref = src.source_ref || '~' || $1::text`,
      [String(k), k * 53],
    );
    total += base;
    log(`copy ${k}: ${total} awards (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  // A live database is vacuumed by autovacuum (visibility map set, so index-only scans skip the heap); a freshly
  // bulk-loaded one is not yet: vacuum it as autovacuum would have, then refresh the planner statistics.
  await db.exec("VACUUM ANALYZE");
}
