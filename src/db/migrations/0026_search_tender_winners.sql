-- The tenders each company won, in list order (docs/search.md, "Named parties"). A tender search row holds its
-- winners as an array (`company_ids`), which a GIN index finds but cannot order: a tender search by a company
-- fragment read every tender row of the companies to keep the newest 10,001 (the biggest company's 20,000 rows:
-- 84 ms p95 at 1M awards). Here one row per (company, tender row), dated as the row, read company by company from
-- its (company, date, id) index as buyers and award rows are. Kept from search_rows' own changes by triggers, so
-- in the same transaction as the rows.
CREATE TABLE search_tender_winners (
  company_id bigint NOT NULL,
  tender_id  bigint NOT NULL,
  date       date,
  PRIMARY KEY (company_id, tender_id)
);
CREATE INDEX search_tender_winners_list_idx
  ON search_tender_winners (company_id, date DESC NULLS LAST, tender_id DESC);

CREATE OR REPLACE FUNCTION search_tender_winners_apply() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM search_tender_winners w
     USING (SELECT o.id, unnest(o.company_ids) AS company_id FROM old_rows o WHERE o.kind = 'tender') AS g
     WHERE w.company_id = g.company_id AND w.tender_id = g.id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    -- In key order: two writers insert the same keys in the same order.
    INSERT INTO search_tender_winners (company_id, tender_id, date)
    SELECT DISTINCT g.company_id, g.id, g.date
      FROM (SELECT n.id, n.date, unnest(n.company_ids) AS company_id FROM new_rows n WHERE n.kind = 'tender') AS g
     ORDER BY g.company_id, g.id
    ON CONFLICT (company_id, tender_id) DO UPDATE SET date = excluded.date;
  END IF;
  RETURN NULL;
END
$$;

INSERT INTO search_tender_winners (company_id, tender_id, date)
SELECT DISTINCT unnest(company_ids), id, date FROM search_rows WHERE kind = 'tender';

CREATE TRIGGER search_rows_winners_insert AFTER INSERT ON search_rows
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_tender_winners_apply();
CREATE TRIGGER search_rows_winners_update AFTER UPDATE ON search_rows
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_tender_winners_apply();
CREATE TRIGGER search_rows_winners_delete AFTER DELETE ON search_rows
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_tender_winners_apply();
ANALYZE search_tender_winners;
