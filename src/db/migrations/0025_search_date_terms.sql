-- Date terms in the search vector (docs/search.md, "Newest rows first"). Each search row's vector also holds two
-- terms naming its kind and the year and quarter of its date ('~award2026', '~award2026q2'), which no typed
-- query can produce (the text parser never keeps '~' in a word). A text search whose words match tens of
-- thousands of rows then asks the GIN index for the matches of the newest quarters and years only
-- (words AND (year OR year OR quarter ...)), so it reads about the 10,000 rows it can rank instead of every
-- match: a word matching 3-6 % of a million award rows read all its 31,000-58,000 matches from the heap to keep
-- the newest 10,001 (200-400 ms). Years keep the question short and let GIN walk the word's own list (terms of
-- small buckets, e.g. one per month, made it walk the union of every month asked for: 333,000 entries for 53
-- months, 55-74 ms). The terms have no position, so ts_rank (no length normalisation) and every match of a
-- user's words are unchanged.
CREATE OR REPLACE FUNCTION search_date_terms(kind text, d date) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT CASE WHEN d IS NULL THEN ''::tsvector
                ELSE array_to_tsvector(ARRAY['~' || kind || extract(year FROM d)::int,
                                             '~' || kind || extract(year FROM d)::int || 'q' || extract(quarter FROM d)::int])
           END
  $$;

-- How many search rows each kind has per quarter, kept by triggers: what sizes a probe (how many quarters back
-- hold the rows a search needs). Only sizing reads it; a wrong count makes a probe read too much or ask again,
-- never answer wrong.
CREATE TABLE search_row_quarters (
  kind    text   NOT NULL,
  quarter date   NOT NULL,
  rows    bigint NOT NULL,
  PRIMARY KEY (kind, quarter)
);

CREATE OR REPLACE FUNCTION search_rows_refresh(tender_ids bigint[]) RETURNS void
  LANGUAGE sql AS $$
  WITH desired AS (
    SELECT 'tender'::text AS kind, t.id, t.id AS tender_id, t.publication_date AS date, t.tsv, t.cpv_prefixes,
           t.nuts, t.buyer_id, NULL::bigint AS company_id,
           ARRAY(SELECT DISTINCT w.winner_company_id FROM awards w
                  WHERE w.tender_id = t.id AND NOT w.superseded AND w.winner_company_id IS NOT NULL
                  ORDER BY 1) AS company_ids,
           t.estimated_value AS value, t.currency
      FROM (SELECT DISTINCT unnest(tender_ids) AS id) AS u
      JOIN tenders t ON t.id = u.id
     WHERE tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)
    UNION ALL
    SELECT k.kind, a.id, a.tender_id, CASE k.kind WHEN 'award' THEN a.award_date ELSE a.start_date END, t.tsv,
           cpv_prefix_set(ARRAY[coalesce(a.cpv, t.cpv_main)]), t.nuts, a.buyer_id, a.winner_company_id,
           NULL::bigint[], a.value, a.currency
      FROM (SELECT DISTINCT unnest(tender_ids) AS id) AS u
      JOIN tenders t ON t.id = u.id
      JOIN awards a ON a.tender_id = t.id
     CROSS JOIN (VALUES ('award'), ('contract')) AS k (kind)
     WHERE tender_searchable(t.linked_to, t.deleted_at, t.deletion_reason)
       AND NOT a.superseded
       AND (k.kind = 'award' OR a.contract_signed)
  ),
  removed AS (
    DELETE FROM search_rows s
     USING (SELECT DISTINCT unnest(tender_ids) AS id) AS u
     WHERE s.tender_id = u.id
       AND NOT EXISTS (SELECT 1 FROM desired d WHERE d.kind = s.kind AND d.id = s.id)
  )
  INSERT INTO search_rows AS s (kind, id, tender_id, date, tsv, cpv_prefixes, nuts, buyer_id, company_id,
                                company_ids, value, currency)
  SELECT kind, id, tender_id, date, tsv || search_date_terms(kind, date), cpv_prefixes, nuts, buyer_id,
         company_id, company_ids, value, currency
    FROM desired
  ON CONFLICT (kind, id) DO UPDATE
     SET tender_id = excluded.tender_id, date = excluded.date, tsv = excluded.tsv,
         cpv_prefixes = excluded.cpv_prefixes, nuts = excluded.nuts, buyer_id = excluded.buyer_id,
         company_id = excluded.company_id, company_ids = excluded.company_ids, value = excluded.value,
         currency = excluded.currency
   WHERE (s.tender_id, s.date, s.tsv, s.cpv_prefixes, s.nuts, s.buyer_id, s.company_id, s.company_ids, s.value,
          s.currency)
         IS DISTINCT FROM
         (excluded.tender_id, excluded.date, excluded.tsv, excluded.cpv_prefixes, excluded.nuts, excluded.buyer_id,
          excluded.company_id, excluded.company_ids, excluded.value, excluded.currency)
$$;

-- Applies a statement's change of search rows to the counts, in key order (two writers lock the same rows in
-- the same order). Rows without a date are in no quarter and no probe.
CREATE OR REPLACE FUNCTION search_row_quarters_apply(kinds text[], dates date[], deltas int[]) RETURNS void
  LANGUAGE sql AS $$
  INSERT INTO search_row_quarters AS q (kind, quarter, rows)
  SELECT kind, quarter, delta
    FROM (SELECT u.kind, date_trunc('quarter', u.date)::date AS quarter, sum(u.delta)::bigint AS delta
            FROM unnest(kinds, dates, deltas) AS u (kind, date, delta)
           WHERE u.date IS NOT NULL
           GROUP BY 1, 2) AS c
   WHERE delta <> 0
   ORDER BY kind, quarter
  ON CONFLICT (kind, quarter) DO UPDATE SET rows = q.rows + excluded.rows
$$;

CREATE OR REPLACE FUNCTION search_rows_counted() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM search_row_quarters_apply(ARRAY(SELECT kind FROM new_rows), ARRAY(SELECT date FROM new_rows),
                                      array_fill(1, ARRAY[(SELECT count(*)::int FROM new_rows)]));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM search_row_quarters_apply(ARRAY(SELECT kind FROM old_rows), ARRAY(SELECT date FROM old_rows),
                                      array_fill(-1, ARRAY[(SELECT count(*)::int FROM old_rows)]));
  ELSE
    PERFORM search_row_quarters_apply(
      ARRAY(SELECT kind FROM old_rows UNION ALL SELECT kind FROM new_rows),
      ARRAY(SELECT date FROM old_rows UNION ALL SELECT date FROM new_rows),
      array_fill(-1, ARRAY[(SELECT count(*)::int FROM old_rows)])
        || array_fill(1, ARRAY[(SELECT count(*)::int FROM new_rows)]));
  END IF;
  RETURN NULL;
END
$$;

-- Rows already built take their terms and are counted (before the counting triggers exist: the rewrite of every
-- vector changes no count). The text indexes are rebuilt once rather than updated row by row.
DROP INDEX IF EXISTS search_rows_award_tsv_idx;
DROP INDEX IF EXISTS search_rows_contract_tsv_idx;
DROP INDEX IF EXISTS search_rows_tender_tsv_idx;
UPDATE search_rows SET tsv = tsv || search_date_terms(kind, date) WHERE date IS NOT NULL;
CREATE INDEX search_rows_award_tsv_idx ON search_rows USING gin (tsv) WHERE kind = 'award';
CREATE INDEX search_rows_contract_tsv_idx ON search_rows USING gin (tsv) WHERE kind = 'contract';
CREATE INDEX search_rows_tender_tsv_idx ON search_rows USING gin (tsv) WHERE kind = 'tender';
INSERT INTO search_row_quarters (kind, quarter, rows)
SELECT kind, date_trunc('quarter', date)::date, count(*) FROM search_rows WHERE date IS NOT NULL GROUP BY 1, 2;
CREATE TRIGGER search_rows_count_insert AFTER INSERT ON search_rows
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_rows_counted();
CREATE TRIGGER search_rows_count_update AFTER UPDATE ON search_rows
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_rows_counted();
CREATE TRIGGER search_rows_count_delete AFTER DELETE ON search_rows
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_rows_counted();
ANALYZE search_rows;
