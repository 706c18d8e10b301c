-- The award profile that a company's opportunities are matched against (db/queries/opportunities.ts), kept with
-- the company's other aggregates: the buyers of its awards, their distinct 8-digit CPV codes and the median of
-- its EUR award values that are not framework ceilings, over its own awards that are not superseded. Read live,
-- the profile of the biggest winner (25,549 awards at 1M) cost 15-26 ms of a 25-45 ms request; stored, it is a
-- primary-key read. It is used only when it is current: the company has no pending refresh mark (stats_dirty)
-- and belongs to no joint venture (a member's profile adds the venture's awards, which its own row does not
-- hold: those are read live). NULL until computed; recomputed with the row by recomputeCompanyStats.
ALTER TABLE company_stats
  ADD COLUMN profile_buyers       bigint[],
  ADD COLUMN profile_cpvs         text[],
  ADD COLUMN profile_median_value float8;

-- The existing rows, with the rules of recomputeCompanyStats (db/queries/stats.ts) as they are at this migration.
WITH won AS MATERIALIZED (
  SELECT a.winner_company_id AS company_id, a.buyer_id, a.cpv,
         CASE WHEN NOT a.value_is_ceiling AND a.currency = 'EUR' THEN a.value END AS spend
    FROM awards a
   WHERE a.winner_company_id IS NOT NULL AND NOT a.superseded
),
pairs AS (
  SELECT company_id, buyer_id, cpv FROM won GROUP BY company_id, buyer_id, cpv
),
lists AS (
  SELECT company_id,
         coalesce(array_agg(DISTINCT buyer_id ORDER BY buyer_id) FILTER (WHERE buyer_id IS NOT NULL), '{}')
           AS buyers,
         coalesce(array_agg(DISTINCT left(cpv, 8) COLLATE "C" ORDER BY left(cpv, 8) COLLATE "C")
                    FILTER (WHERE cpv ~ '^[0-9]{8}'), '{}') AS cpvs
    FROM pairs
   GROUP BY company_id
),
medians AS (
  SELECT company_id, percentile_cont(0.5) WITHIN GROUP (ORDER BY spend::float8) AS median_value
    FROM won
   GROUP BY company_id
)
UPDATE company_stats s
   SET profile_buyers = l.buyers, profile_cpvs = l.cpvs, profile_median_value = m.median_value
  FROM lists l
  JOIN medians m ON m.company_id = l.company_id
 WHERE s.company_id = l.company_id;
