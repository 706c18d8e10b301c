-- Support for the in-memory search index (docs/search.md).

-- A counter that changes whenever a transaction that wrote tenders or awards commits. The search index is
-- built for one value of it and used only while the value is unchanged, so no write (ingest, linking, a test
-- fixture) can leave search answering from stale data.
CREATE TABLE search_data_version (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version   bigint  NOT NULL
);
INSERT INTO search_data_version (singleton, version) VALUES (true, 1);

-- The counter is bumped at commit, not at each statement: a statement trigger records the writing transaction
-- here (once; later statements of the same transaction conflict and do nothing), and a deferred constraint
-- trigger on this table bumps the counter when that transaction commits. The counter's row lock is therefore
-- held only during commit, so concurrent ingest transactions never wait on each other through it, and a
-- rolled-back transaction bumps nothing.
CREATE TABLE search_data_pending (
  txid xid8 PRIMARY KEY
);

CREATE OR REPLACE FUNCTION search_data_touched() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_data_pending (txid) VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION search_data_committing() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_data_version SET version = version + 1;
  DELETE FROM search_data_pending WHERE txid = NEW.txid;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER search_data_commit AFTER INSERT ON search_data_pending
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION search_data_committing();

CREATE TRIGGER tenders_search_data AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenders
  FOR EACH STATEMENT EXECUTE FUNCTION search_data_touched();
CREATE TRIGGER awards_search_data AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON awards
  FOR EACH STATEMENT EXECUTE FUNCTION search_data_touched();
