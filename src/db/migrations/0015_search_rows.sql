-- Search on PostgreSQL alone (docs/search.md): one denormalized, indexed relation holding every row
-- `GET /v1/search` can return, maintained by triggers inside the transaction that changes its sources.

-- 1. Retire the in-memory index's freshness machinery (migration 0013).
DROP TRIGGER IF EXISTS tenders_search_data ON tenders;
DROP TRIGGER IF EXISTS awards_search_data ON awards;
DROP TABLE IF EXISTS search_data_pending;
DROP TABLE IF EXISTS search_data_version;
DROP FUNCTION IF EXISTS search_data_touched();
DROP FUNCTION IF EXISTS search_data_committing();

-- 2. Weighted full text: title words weigh A (1.0 in ts_rank), description words D (0.1), so a notice whose
-- title names the searched words outranks one that only mentions them in its description. The tenders table
-- keeps the weighted vector (computed once per write of the tender); search rows copy it. The GIN index moves
-- to the search relation.
DROP INDEX IF EXISTS tenders_tsv_idx;
ALTER TABLE tenders DROP COLUMN tsv;
ALTER TABLE tenders ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('spanish'::regconfig, immutable_unaccent(coalesce(title, ''))), 'A')
  || setweight(to_tsvector('spanish'::regconfig, immutable_unaccent(coalesce(description, ''))), 'D')
) STORED;

-- 3. The search relation. One row per searchable award ('award', dated by award_date), per signed contract
-- ('contract', the same award dated by its start) and per tender ('tender', dated by publication). Every
-- filter of the search reads columns of this table only; display fields are joined for the page's rows.
CREATE TABLE search_rows (
  kind         text   NOT NULL CHECK (kind IN ('award', 'contract', 'tender')),
  -- The award id ('award', 'contract') or the tender id ('tender').
  id           bigint NOT NULL,
  tender_id    bigint NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  date         date,
  tsv          tsvector NOT NULL,
  cpv_prefixes text[] NOT NULL,
  nuts         text,
  buyer_id     bigint,
  -- The winner ('award', 'contract'); null on tender rows.
  company_id   bigint,
  -- The winners of the tender's searchable awards, ascending ('tender' rows; null on the others): "tenders won
  -- by" is then a condition on the row itself.
  company_ids  bigint[],
  value        numeric(20, 2),
  currency     text,
  PRIMARY KEY (kind, id)
);
-- List order (date descending, unknown dates last, id descending) per kind. It carries the party and region
-- columns so that a broad filtered search walks the index alone (an index-only scan on all-visible pages)
-- until it has its window of rows, instead of fetching every row it tests from the heap.
CREATE INDEX search_rows_list_idx ON search_rows (kind, date DESC NULLS LAST, id DESC)
  INCLUDE (buyer_id, company_id, nuts, company_ids);
-- A party's rows in list order (a small party's window is a range of this index).
CREATE INDEX search_rows_buyer_idx ON search_rows (kind, buyer_id, date DESC NULLS LAST, id DESC);
CREATE INDEX search_rows_company_idx ON search_rows (kind, company_id, date DESC NULLS LAST, id DESC);
CREATE INDEX search_rows_tender_companies_idx ON search_rows USING gin (company_ids) WHERE kind = 'tender';
CREATE INDEX search_rows_nuts_idx ON search_rows (kind, nuts text_pattern_ops);
CREATE INDEX search_rows_tender_idx ON search_rows (tender_id);
-- Text and CPV prefixes, one GIN index per kind: a search reads one kind, and a shared index would have to be
-- intersected with every row of the kind (a bitmap of a million entries at a million awards).
CREATE INDEX search_rows_award_tsv_idx ON search_rows USING gin (tsv) WHERE kind = 'award';
CREATE INDEX search_rows_contract_tsv_idx ON search_rows USING gin (tsv) WHERE kind = 'contract';
CREATE INDEX search_rows_tender_tsv_idx ON search_rows USING gin (tsv) WHERE kind = 'tender';
CREATE INDEX search_rows_award_cpv_idx ON search_rows USING gin (cpv_prefixes) WHERE kind = 'award';
CREATE INDEX search_rows_contract_cpv_idx ON search_rows USING gin (cpv_prefixes) WHERE kind = 'contract';
CREATE INDEX search_rows_tender_cpv_idx ON search_rows USING gin (cpv_prefixes) WHERE kind = 'tender';

-- Whether a tender's rows are searchable. A procedure published on both sources is answered once, by its
-- canonical (PLACSP) side (docs/linking.md). A tombstoned folder leaves search unless upstream closed it
-- (`CERRADA`: archived at the end of its life, its awards are still history); an annulled (`ANULADA`) or
-- otherwise withdrawn folder does not stay findable.
CREATE OR REPLACE FUNCTION tender_searchable(linked_to bigint, deleted_at timestamptz, deletion_reason text)
  RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT linked_to IS NULL AND (deleted_at IS NULL OR deletion_reason IS NOT DISTINCT FROM 'CERRADA') $$;

-- Brings the search rows of these tenders in line with tenders and awards: inserts what is missing, updates
-- what differs, deletes what should no longer be there, and writes nothing for rows already right (so a
-- re-ingested unchanged page leaves the relation untouched). The ids are read straight from the array in each
-- branch: a shared CTE of them made PGlite plan nested loops over a materialized scan, 15x slower.
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
           t.cpv_prefixes, t.nuts, a.buyer_id, a.winner_company_id, NULL::bigint[], a.value, a.currency
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

-- Maintenance runs once per writing transaction, at its commit: statement-level triggers with transition tables
-- on `tenders` (insert, and updates of a searchable column) and `awards` (insert, update, delete) record the
-- touched tenders in `search_rows_pending`, and a deferred constraint trigger refreshes them when the
-- transaction commits (`SET CONSTRAINTS search_rows_commit IMMEDIATE` runs it earlier). An ingest batch writes
-- tenders, then their awards, in one transaction: refreshing per statement would build each tender's rows twice.
-- A rolled-back transaction leaves nothing behind. Deleted tenders take their rows with them (ON DELETE CASCADE).
CREATE TABLE search_rows_pending (
  txid      xid8   NOT NULL,
  tender_id bigint NOT NULL,
  PRIMARY KEY (txid, tender_id)
);
-- One row per transaction with pending tenders: its deferred trigger fires once, at commit.
CREATE TABLE search_rows_pending_tx (
  txid xid8 PRIMARY KEY
);

CREATE OR REPLACE FUNCTION search_rows_mark(tender_ids bigint[]) RETURNS void
  LANGUAGE sql AS $$
  WITH marked AS (
    INSERT INTO search_rows_pending (txid, tender_id)
    SELECT DISTINCT pg_current_xact_id(), id FROM unnest(tender_ids) AS u (id) WHERE id IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING 1
  )
  INSERT INTO search_rows_pending_tx (txid)
  SELECT pg_current_xact_id() WHERE EXISTS (SELECT 1 FROM marked)
  ON CONFLICT DO NOTHING
$$;

CREATE OR REPLACE FUNCTION search_rows_flush() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM search_rows_refresh(ARRAY(SELECT tender_id FROM search_rows_pending WHERE txid = NEW.txid));
  DELETE FROM search_rows_pending WHERE txid = NEW.txid;
  DELETE FROM search_rows_pending_tx WHERE txid = NEW.txid;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER search_rows_commit AFTER INSERT ON search_rows_pending_tx
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION search_rows_flush();

CREATE OR REPLACE FUNCTION tenders_search_rows_changed() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM search_rows_mark(ARRAY(SELECT n.id FROM new_tenders n));
  ELSE
    PERFORM search_rows_mark(ARRAY(
      SELECT n.id
        FROM new_tenders n
        JOIN old_tenders o ON o.id = n.id
       WHERE (o.title, o.description, o.publication_date, o.cpv_all, o.nuts, o.buyer_id, o.estimated_value,
              o.currency, o.linked_to, o.deleted_at, o.deletion_reason)
             IS DISTINCT FROM
             (n.title, n.description, n.publication_date, n.cpv_all, n.nuts, n.buyer_id, n.estimated_value,
              n.currency, n.linked_to, n.deleted_at, n.deletion_reason)));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER tenders_search_rows_insert AFTER INSERT ON tenders
  REFERENCING NEW TABLE AS new_tenders
  FOR EACH STATEMENT EXECUTE FUNCTION tenders_search_rows_changed();
CREATE TRIGGER tenders_search_rows_update AFTER UPDATE ON tenders
  REFERENCING OLD TABLE AS old_tenders NEW TABLE AS new_tenders
  FOR EACH STATEMENT EXECUTE FUNCTION tenders_search_rows_changed();

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
              o.winner_company_id, o.value, o.currency)
             IS DISTINCT FROM
             (n.tender_id, n.award_date, n.start_date, n.contract_signed, n.superseded, n.buyer_id,
              n.winner_company_id, n.value, n.currency)));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER awards_search_rows_insert AFTER INSERT ON awards
  REFERENCING NEW TABLE AS new_awards
  FOR EACH STATEMENT EXECUTE FUNCTION awards_search_rows_changed();
CREATE TRIGGER awards_search_rows_update AFTER UPDATE ON awards
  REFERENCING OLD TABLE AS old_awards NEW TABLE AS new_awards
  FOR EACH STATEMENT EXECUTE FUNCTION awards_search_rows_changed();
CREATE TRIGGER awards_search_rows_delete AFTER DELETE ON awards
  REFERENCING OLD TABLE AS old_awards
  FOR EACH STATEMENT EXECUTE FUNCTION awards_search_rows_changed();

-- 4. A database migrated with data in it: build the relation once.
SELECT search_rows_refresh(ARRAY(SELECT id FROM tenders));
ANALYZE search_rows;
