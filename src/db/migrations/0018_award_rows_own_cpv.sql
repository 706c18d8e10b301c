-- Rows match their filter (issue 16): an award or contract row matches `cpv` by its own CPV (its lot's, else the
-- notice's main CPV), no longer by every CPV of the notice (a user filtering by 72 read a lot in 48820000 as a
-- wrong answer). Tender rows keep every CPV of the notice. Award rows' prefixes change with the award's CPV,
-- so the award trigger now also watches `cpv`.

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
  SELECT kind, id, tender_id, date, tsv, cpv_prefixes, nuts, buyer_id, company_id, company_ids, value, currency
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

CREATE OR REPLACE FUNCTION awards_search_rows_changed() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM search_rows_mark(ARRAY(SELECT n.tender_id FROM new_awards n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM search_rows_mark(ARRAY(SELECT o.tender_id FROM old_awards o));
  ELSE
    PERFORM search_rows_mark(ARRAY(
      SELECT x.tender_id
        FROM new_awards n
        JOIN old_awards o ON o.id = n.id
       CROSS JOIN LATERAL (VALUES (o.tender_id), (n.tender_id)) AS x (tender_id)
       WHERE (o.tender_id, o.award_date, o.start_date, o.contract_signed, o.superseded, o.buyer_id,
              o.winner_company_id, o.value, o.currency, o.cpv)
             IS DISTINCT FROM
             (n.tender_id, n.award_date, n.start_date, n.contract_signed, n.superseded, n.buyer_id,
              n.winner_company_id, n.value, n.currency, n.cpv)));
  END IF;
  RETURN NULL;
END
$$;

-- Rows already built take their own CPV now.
UPDATE search_rows s
   SET cpv_prefixes = cpv_prefix_set(ARRAY[coalesce(a.cpv, t.cpv_main)])
  FROM awards a
  JOIN tenders t ON t.id = a.tender_id
 WHERE s.kind IN ('award', 'contract')
   AND s.id = a.id
   AND s.cpv_prefixes IS DISTINCT FROM cpv_prefix_set(ARRAY[coalesce(a.cpv, t.cpv_main)]);
ANALYZE search_rows;
