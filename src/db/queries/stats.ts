import type { Queryable } from "../client.ts";

/**
 * Materialized company and buyer aggregates (company_stats, buyer_stats). Rules (docs/decisions.md):
 * - a win is an award row with a winner; sums are over `value` in EUR that is not a framework ceiling
 *   (ceilings and other currencies are counted, for the caveats, never added);
 * - lists are ranked with a total order (count desc, sum desc with unknown sums last, then code or id);
 * - names and CPV labels are not stored here: they are joined when read, so a label loaded or a name
 *   completed later shows without a refresh.
 * Recomputation is set-based: one statement per table for any set of ids (or all of them).
 */

/** Which companies or buyers to recompute: the given ids, or every one. */
export type StatsTarget = readonly number[] | "all";

const REFRESH_LOCK_KEY = 4_242_010;

/** Serialises refreshes (PostgreSQL: across processes) until the caller's transaction ends. */
export async function lockStatsRefresh(db: Queryable): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock($1)", [REFRESH_LOCK_KEY]);
}

/**
 * Takes the pending marks (rows the statement's snapshot sees) and returns the distinct ids per kind. Marks
 * committed after this statement started stay for the next refresh; recomputing in a later statement sees at
 * least every change whose mark was taken here.
 */
export async function takeDirtyStats(db: Queryable): Promise<{ companies: number[]; buyers: number[] }> {
  const { rows } = await db.query<{ kind: "company" | "buyer"; ids: number[] }>(
    `WITH taken AS (DELETE FROM stats_dirty RETURNING kind, id)
     SELECT kind, json_agg(DISTINCT id ORDER BY id) AS ids FROM taken GROUP BY kind`,
  );
  return {
    companies: rows.find((r) => r.kind === "company")?.ids ?? [],
    buyers: rows.find((r) => r.kind === "buyer")?.ids ?? [],
  };
}

/** Net value, ceiling and foreign-currency flags of an award, shared by both recomputations. */
const VALUE_COLUMNS = `CASE WHEN NOT a.value_is_ceiling AND a.currency = 'EUR' THEN a.value END AS spend,
         (a.value IS NOT NULL AND a.value_is_ceiling) AS ceiling,
         (a.value IS NOT NULL AND NOT a.value_is_ceiling AND a.currency IS DISTINCT FROM 'EUR') AS non_eur`;

/** Recomputes company_stats of the target companies; companies without wins end up without a row. */
export async function recomputeCompanyStats(db: Queryable, target: StatsTarget): Promise<number> {
  if (target !== "all" && target.length === 0) {
    return 0;
  }
  const all = target === "all";
  const params = all ? [] : [target];
  await db.query(
    all ? "DELETE FROM company_stats" : "DELETE FROM company_stats WHERE company_id = ANY($1::bigint[])",
    params,
  );
  const { rowCount } = await db.query(
    `WITH won AS MATERIALIZED (
       SELECT a.winner_company_id AS company_id, a.buyer_id, a.cpv, ${VALUE_COLUMNS}
         FROM awards a
        WHERE ${all ? "a.winner_company_id IS NOT NULL" : "a.winner_company_id = ANY($1::bigint[])"}
          AND NOT a.superseded
     ),
     totals AS (
       SELECT company_id, count(*)::int AS wins, sum(spend) AS total_value,
              count(*) FILTER (WHERE ceiling)::int AS ceilings_excluded,
              count(*) FILTER (WHERE non_eur)::int AS non_eur_excluded,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY spend::float8) AS median_value
         FROM won
        GROUP BY company_id
     ),
     -- The opportunity profile's lists (migration 0027), from the distinct (buyer, CPV) pairs as the live
     -- profile read takes them (readLiveOpportunityProfile).
     pairs AS (
       SELECT company_id, buyer_id, cpv FROM won GROUP BY company_id, buyer_id, cpv
     ),
     profile_lists AS (
       SELECT company_id,
              coalesce(array_agg(DISTINCT buyer_id ORDER BY buyer_id) FILTER (WHERE buyer_id IS NOT NULL), '{}')
                AS buyers,
              coalesce(array_agg(DISTINCT left(cpv, 8) COLLATE "C" ORDER BY left(cpv, 8) COLLATE "C")
                         FILTER (WHERE cpv ~ '^[0-9]{8}'), '{}') AS cpvs
         FROM pairs
        GROUP BY company_id
     ),
     by_cpv AS (
       SELECT company_id, cpv, count(*)::int AS wins, sum(spend) AS total_value,
              row_number() OVER (PARTITION BY company_id
                                 ORDER BY count(*) DESC, sum(spend) DESC NULLS LAST, cpv COLLATE "C") AS pos
         FROM won
        WHERE cpv IS NOT NULL
        GROUP BY company_id, cpv
     ),
     top_cpvs AS (
       SELECT company_id,
              jsonb_agg(jsonb_build_object('code', cpv, 'wins', wins, 'total_value', total_value) ORDER BY pos)
                AS list
         FROM by_cpv
        WHERE pos <= 10
        GROUP BY company_id
     ),
     by_buyer AS (
       SELECT company_id, buyer_id, count(*)::int AS wins, sum(spend) AS total_value,
              row_number() OVER (PARTITION BY company_id
                                 ORDER BY count(*) DESC, sum(spend) DESC NULLS LAST, buyer_id) AS pos
         FROM won
        WHERE buyer_id IS NOT NULL
        GROUP BY company_id, buyer_id
     ),
     top_buyers AS (
       SELECT company_id,
              jsonb_agg(jsonb_build_object('id', buyer_id, 'wins', wins, 'total_value', total_value) ORDER BY pos)
                AS list
         FROM by_buyer
        WHERE pos <= 10
        GROUP BY company_id
     )
     INSERT INTO company_stats (company_id, wins, total_value, ceilings_excluded, non_eur_excluded, top_cpvs,
                                top_buyers, profile_buyers, profile_cpvs, profile_median_value, refreshed_at)
     SELECT t.company_id, t.wins, t.total_value, t.ceilings_excluded, t.non_eur_excluded,
            coalesce(c.list, '[]'::jsonb), coalesce(b.list, '[]'::jsonb), p.buyers, p.cpvs, t.median_value, now()
       FROM totals t
       JOIN profile_lists p ON p.company_id = t.company_id
       LEFT JOIN top_cpvs c ON c.company_id = t.company_id
       LEFT JOIN top_buyers b ON b.company_id = t.company_id`,
    params,
  );
  return rowCount;
}

/**
 * Recomputes buyer_stats of the target buyers; buyers without awards end up without a row.
 * - top-3 shares: the three suppliers with the most awards (by count) or the largest sum (by value), over
 *   awards that have a winner; ties do not change a top-3 sum;
 * - recurrence: per CPV division (first two digits of the award's CPV), the median of the gaps in days between
 *   consecutive distinct award dates, in months of 30.4375 days (365.25 / 12), rounded to 2 decimals; null
 *   when the division has fewer than two distinct dates.
 */
export async function recomputeBuyerStats(db: Queryable, target: StatsTarget): Promise<number> {
  if (target !== "all" && target.length === 0) {
    return 0;
  }
  const all = target === "all";
  const params = all ? [] : [target];
  await db.query(
    all ? "DELETE FROM buyer_stats" : "DELETE FROM buyer_stats WHERE buyer_id = ANY($1::bigint[])",
    params,
  );
  const { rowCount } = await db.query(
    `WITH scoped AS MATERIALIZED (
       SELECT a.buyer_id, a.winner_company_id, a.award_date, left(a.cpv, 2) AS division, ${VALUE_COLUMNS}
         FROM awards a
        WHERE ${all ? "a.buyer_id IS NOT NULL" : "a.buyer_id = ANY($1::bigint[])"}
          AND NOT a.superseded
     ),
     totals AS (
       SELECT buyer_id, count(*)::int AS awards_total, count(winner_company_id)::int AS with_winner,
              sum(spend) FILTER (WHERE winner_company_id IS NOT NULL) AS value_total,
              count(*) FILTER (WHERE ceiling)::int AS ceilings_excluded,
              count(*) FILTER (WHERE non_eur)::int AS non_eur_excluded
         FROM scoped
        GROUP BY buyer_id
     ),
     suppliers AS (
       SELECT buyer_id, count(*) AS n, sum(spend) AS v,
              row_number() OVER (PARTITION BY buyer_id ORDER BY count(*) DESC, winner_company_id) AS pos_n,
              row_number() OVER (PARTITION BY buyer_id
                                 ORDER BY sum(spend) DESC NULLS LAST, winner_company_id) AS pos_v
         FROM scoped
        WHERE winner_company_id IS NOT NULL
        GROUP BY buyer_id, winner_company_id
     ),
     top3 AS (
       SELECT buyer_id, sum(n) FILTER (WHERE pos_n <= 3) AS n3, sum(v) FILTER (WHERE pos_v <= 3) AS v3
         FROM suppliers
        GROUP BY buyer_id
     ),
     gaps AS (
       SELECT buyer_id, division,
              award_date - lag(award_date) OVER (PARTITION BY buyer_id, division ORDER BY award_date) AS days
         FROM (SELECT DISTINCT buyer_id, division, award_date
                 FROM scoped
                WHERE division IS NOT NULL AND award_date IS NOT NULL) dated
     ),
     medians AS (
       SELECT buyer_id, division, percentile_cont(0.5) WITHIN GROUP (ORDER BY days) AS median_days
         FROM gaps
        WHERE days IS NOT NULL
        GROUP BY buyer_id, division
     ),
     recurrence AS (
       SELECT d.buyer_id,
              jsonb_agg(jsonb_build_object('cpv', d.division,
                                           'median_months', round(m.median_days::numeric / 30.4375, 2))
                        ORDER BY d.division COLLATE "C") AS list
         FROM (SELECT DISTINCT buyer_id, division FROM scoped WHERE division IS NOT NULL) d
         LEFT JOIN medians m ON m.buyer_id = d.buyer_id AND m.division = d.division
        GROUP BY d.buyer_id
     )
     INSERT INTO buyer_stats (buyer_id, awards_total, top3_share_by_count, top3_share_by_value,
                              ceilings_excluded, non_eur_excluded, recurrence, refreshed_at)
     SELECT t.buyer_id, t.awards_total,
            CASE WHEN t.with_winner > 0 THEN round(x.n3::numeric / t.with_winner, 4) END,
            CASE WHEN t.value_total > 0 THEN round(x.v3 / t.value_total, 4) END,
            t.ceilings_excluded, t.non_eur_excluded, coalesce(r.list, '[]'::jsonb), now()
       FROM totals t
       LEFT JOIN top3 x ON x.buyer_id = t.buyer_id
       LEFT JOIN recurrence r ON r.buyer_id = t.buyer_id`,
    params,
  );
  return rowCount;
}

export interface TopCpvRow {
  code: string;
  label_en: string | null;
  label_es: string | null;
  wins: number;
  total_value: number | null;
}

export interface TopBuyerRow {
  id: number;
  name: string;
  wins: number;
  total_value: number | null;
}

export interface CompanyStatsRow {
  wins: number;
  total_value: number | null;
  ceilings_excluded: number;
  non_eur_excluded: number;
  top_cpvs: TopCpvRow[];
  top_buyers: TopBuyerRow[];
}

/** A company's materialized aggregates with CPV labels (null when not loaded) and buyer names joined in. */
export async function readCompanyStats(
  db: Queryable,
  companyId: number,
): Promise<CompanyStatsRow | undefined> {
  const { rows } = await db.query<CompanyStatsRow>(
    `SELECT s.wins, s.total_value, s.ceilings_excluded, s.non_eur_excluded,
            coalesce((SELECT jsonb_agg(jsonb_build_object('code', e.item->>'code', 'label_en', l.label_en,
                                                          'label_es', l.label_es, 'wins', e.item->'wins',
                                                          'total_value', e.item->'total_value')
                                       ORDER BY e.pos)
                        FROM jsonb_array_elements(s.top_cpvs) WITH ORDINALITY AS e(item, pos)
                        LEFT JOIN cpv_codes l ON l.code = left(e.item->>'code', 8)), '[]'::jsonb) AS top_cpvs,
            coalesce((SELECT jsonb_agg(jsonb_build_object('id', b.id, 'name', b.name, 'wins', e.item->'wins',
                                                          'total_value', e.item->'total_value')
                                       ORDER BY e.pos)
                        FROM jsonb_array_elements(s.top_buyers) WITH ORDINALITY AS e(item, pos)
                        JOIN buyers b ON b.id = (e.item->>'id')::bigint), '[]'::jsonb) AS top_buyers
       FROM company_stats s
      WHERE s.company_id = $1`,
    [companyId],
  );
  return rows[0];
}

export interface RecurrenceRow {
  cpv: string;
  median_months: number | null;
}

export interface BuyerStatsRow {
  awards_total: number;
  top3_share_by_count: number | null;
  top3_share_by_value: number | null;
  ceilings_excluded: number;
  non_eur_excluded: number;
  recurrence: RecurrenceRow[];
}

export async function readBuyerStats(db: Queryable, buyerId: number): Promise<BuyerStatsRow | undefined> {
  const { rows } = await db.query<BuyerStatsRow>(
    `SELECT s.awards_total, s.top3_share_by_count, s.top3_share_by_value, s.ceilings_excluded,
            s.non_eur_excluded, s.recurrence
       FROM buyer_stats s
      WHERE s.buyer_id = $1`,
    [buyerId],
  );
  return rows[0];
}
