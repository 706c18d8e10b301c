-- The search relation partitioned by kind, then by its date (two years a partition) (docs/search.md, "How a text search finds
-- its window"). A text search needs the SEARCH_WINDOW newest matching rows of one kind; a frequent word matches
-- tens of thousands of rows spread over as many heap pages, and fetching each to learn its date was most of the
-- cost of such a search (38,570 heap pages for "mantenimiento de software" at 1M awards, where a page held ~13
-- rows of three kinds). The search now asks the newest years first (`date >= <1 January of a year>` prunes the
-- older partitions, whose indexes are never read) and widens only when too few rows match there; a kind's rows
-- fill their own pages.
--
-- (kind, id) stays unique without a constraint (a unique index must hold the date, which changes): every write
-- goes through search_rows_refresh, which runs under a transaction-scoped advisory lock.

ALTER TABLE search_rows RENAME TO search_rows_before_0022;

CREATE TABLE search_rows (
  kind         text   NOT NULL CHECK (kind IN ('award', 'contract', 'tender')),
  id           bigint NOT NULL,
  tender_id    bigint NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  date         date,
  tsv          tsvector NOT NULL,
  cpv_prefixes text[] NOT NULL,
  nuts         text,
  buyer_id     bigint,
  company_id   bigint,
  company_ids  bigint[],
  value        numeric(20, 2),
  currency     text
) PARTITION BY LIST (kind);

-- One partition per two years from 2014 to 2031 (even years start one; db/queries/search.ts probes from such a
-- start), one before, one after, and one for rows without a date (read only after every dated row: they sort
-- last). Two years rather than one: each partition carries nine indexes, and an empty database's 36 partitions
-- are what migrating it costs.
DO $$
DECLARE
  kind text;
  year int;
BEGIN
  FOREACH kind IN ARRAY ARRAY['award', 'contract', 'tender'] LOOP
    EXECUTE format('CREATE TABLE search_rows_%s PARTITION OF search_rows FOR VALUES IN (%L) PARTITION BY RANGE (date)',
                   kind, kind);
    EXECUTE format('CREATE TABLE search_rows_%s_before PARTITION OF search_rows_%s FOR VALUES FROM (MINVALUE) TO (%L)',
                   kind, kind, '2014-01-01');
    FOR year IN 2014..2030 BY 2 LOOP
      EXECUTE format('CREATE TABLE search_rows_%s_%s PARTITION OF search_rows_%s FOR VALUES FROM (%L) TO (%L)',
                     kind, year, kind, year || '-01-01', (year + 2) || '-01-01');
    END LOOP;
    EXECUTE format('CREATE TABLE search_rows_%s_after PARTITION OF search_rows_%s FOR VALUES FROM (%L) TO (MAXVALUE)',
                   kind, kind, '2032-01-01');
    EXECUTE format('CREATE TABLE search_rows_%s_undated PARTITION OF search_rows_%s DEFAULT', kind, kind);
  END LOOP;
END $$;

INSERT INTO search_rows SELECT * FROM search_rows_before_0022;
DROP TABLE search_rows_before_0022;

-- The indexes of migration 0015, per partition now (a kind is a partition, so `kind` leaves every key).
CREATE INDEX search_rows_id_idx ON search_rows (kind, id);
CREATE INDEX search_rows_list_idx ON search_rows (date DESC NULLS LAST, id DESC)
  INCLUDE (buyer_id, company_id, nuts, company_ids);
CREATE INDEX search_rows_buyer_idx ON search_rows (buyer_id, date DESC NULLS LAST, id DESC);
CREATE INDEX search_rows_company_idx ON search_rows (company_id, date DESC NULLS LAST, id DESC);
CREATE INDEX search_rows_tender_companies_idx ON search_rows_tender USING gin (company_ids);
CREATE INDEX search_rows_nuts_idx ON search_rows (nuts text_pattern_ops);
CREATE INDEX search_rows_tender_idx ON search_rows (tender_id);
CREATE INDEX search_rows_tsv_idx ON search_rows USING gin (tsv);
CREATE INDEX search_rows_cpv_idx ON search_rows USING gin (cpv_prefixes);

-- Same rows as migrations 0015 and 0018; without a unique key to conflict on, a row that differs from what it
-- should be is deleted and inserted again, and a row already right is left alone (a re-ingested unchanged page
-- writes nothing). The advisory lock keeps two transactions from inserting the same (kind, id).
CREATE OR REPLACE FUNCTION search_rows_refresh(tender_ids bigint[]) RETURNS void
  LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(4242022);
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
       AND NOT EXISTS (
         SELECT 1 FROM desired d
          WHERE d.kind = s.kind AND d.id = s.id
            AND (d.tender_id, d.date, d.tsv, d.cpv_prefixes, d.nuts, d.buyer_id, d.company_id, d.company_ids,
                 d.value, d.currency)
                IS NOT DISTINCT FROM
                (s.tender_id, s.date, s.tsv, s.cpv_prefixes, s.nuts, s.buyer_id, s.company_id, s.company_ids,
                 s.value, s.currency))
  )
  -- The statement's snapshot still sees the rows `removed` deletes: a row that differs is not "already right"
  -- and goes in again; a row already right is neither deleted nor inserted.
  INSERT INTO search_rows (kind, id, tender_id, date, tsv, cpv_prefixes, nuts, buyer_id, company_id, company_ids,
                           value, currency)
  SELECT d.kind, d.id, d.tender_id, d.date, d.tsv, d.cpv_prefixes, d.nuts, d.buyer_id, d.company_id,
         d.company_ids, d.value, d.currency
    FROM desired d
   WHERE NOT EXISTS (
     SELECT 1 FROM search_rows s
      WHERE s.kind = d.kind AND s.id = d.id
        AND (d.tender_id, d.date, d.tsv, d.cpv_prefixes, d.nuts, d.buyer_id, d.company_id, d.company_ids, d.value,
             d.currency)
            IS NOT DISTINCT FROM
            (s.tender_id, s.date, s.tsv, s.cpv_prefixes, s.nuts, s.buyer_id, s.company_id, s.company_ids, s.value,
             s.currency))
$$;

-- Dated search rows per kind and year: where a text search's first probe starts (queries/search.ts). A planning
-- hint only, refreshed after every ingest run: a stale count makes a probe wider or narrower than planned, never
-- an answer wrong, because a probe is accepted only when more than the window's rows match in it.
CREATE TABLE search_row_years (
  kind text   NOT NULL,
  year int    NOT NULL,
  rows bigint NOT NULL,
  PRIMARY KEY (kind, year)
);
INSERT INTO search_row_years (kind, year, rows)
SELECT kind, extract(year FROM date)::int, count(*) FROM search_rows WHERE date IS NOT NULL GROUP BY 1, 2;

ANALYZE search_rows;
