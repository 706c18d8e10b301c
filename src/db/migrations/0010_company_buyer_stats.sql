-- Company and buyer aggregates (company_stats, buyer_stats from 0009) are refreshed incrementally: only the
-- companies and buyers whose awards changed since the last refresh are recomputed.

-- Counts behind the caveats: values left out of the sums because they are framework ceilings, or because they
-- are not in EUR (sums are EUR; amounts in different currencies are never added up).
ALTER TABLE company_stats ADD COLUMN non_eur_excluded integer NOT NULL DEFAULT 0;
ALTER TABLE buyer_stats ADD COLUMN ceilings_excluded integer NOT NULL DEFAULT 0;
ALTER TABLE buyer_stats ADD COLUMN non_eur_excluded integer NOT NULL DEFAULT 0;

-- Companies and buyers whose awards changed since the last refresh. Append-only: writers only INSERT (no unique
-- key, so concurrent ingest transactions never wait on each other or deadlock here); the refresh deletes the
-- rows its snapshot sees and recomputes those ids in a later statement, so a mark committed meanwhile is left
-- for the next refresh instead of being lost. Duplicates are harmless (the refresh takes distinct ids).
CREATE TABLE stats_dirty (
  kind text   NOT NULL CHECK (kind IN ('company', 'buyer')),
  id   bigint NOT NULL
);
-- Readers ask whether one company has a pending change (company awards: is the materialized count current?).
CREATE INDEX stats_dirty_kind_id_idx ON stats_dirty (kind, id);

-- Marks the winners and buyers of changed awards: statement-level, from the transition tables, so a batch of
-- 500 awards costs one INSERT. An update marks both the old and the new winner and buyer, and only when a
-- column the aggregates read changed (a re-publication that leaves the award as it was marks nothing).
CREATE OR REPLACE FUNCTION awards_mark_stats_dirty() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stats_dirty (kind, id)
    SELECT DISTINCT x.kind, x.id
      FROM new_awards n
     CROSS JOIN LATERAL (VALUES ('company', n.winner_company_id), ('buyer', n.buyer_id)) AS x(kind, id)
     WHERE x.id IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stats_dirty (kind, id)
    SELECT DISTINCT x.kind, x.id
      FROM old_awards o
     CROSS JOIN LATERAL (VALUES ('company', o.winner_company_id), ('buyer', o.buyer_id)) AS x(kind, id)
     WHERE x.id IS NOT NULL;
  ELSE
    INSERT INTO stats_dirty (kind, id)
    SELECT DISTINCT x.kind, x.id
      FROM old_awards o
      JOIN new_awards n ON n.id = o.id
     CROSS JOIN LATERAL (VALUES ('company', o.winner_company_id), ('company', n.winner_company_id),
                                ('buyer', o.buyer_id), ('buyer', n.buyer_id)) AS x(kind, id)
     WHERE x.id IS NOT NULL
       AND (o.winner_company_id, o.buyer_id, o.award_date, o.value, o.currency, o.value_is_ceiling, o.cpv)
           IS DISTINCT FROM
           (n.winner_company_id, n.buyer_id, n.award_date, n.value, n.currency, n.value_is_ceiling, n.cpv);
  END IF;
  RETURN NULL;
END
$$;

-- Transition tables allow one event per trigger, hence three triggers on one function.
CREATE TRIGGER awards_stats_dirty_insert AFTER INSERT ON awards
  REFERENCING NEW TABLE AS new_awards
  FOR EACH STATEMENT EXECUTE FUNCTION awards_mark_stats_dirty();
CREATE TRIGGER awards_stats_dirty_update AFTER UPDATE ON awards
  REFERENCING OLD TABLE AS old_awards NEW TABLE AS new_awards
  FOR EACH STATEMENT EXECUTE FUNCTION awards_mark_stats_dirty();
CREATE TRIGGER awards_stats_dirty_delete AFTER DELETE ON awards
  REFERENCING OLD TABLE AS old_awards
  FOR EACH STATEMENT EXECUTE FUNCTION awards_mark_stats_dirty();

-- A database migrated with awards already in it: everything that has awards is due for a first refresh.
INSERT INTO stats_dirty (kind, id)
SELECT DISTINCT 'company', winner_company_id FROM awards WHERE winner_company_id IS NOT NULL
UNION
SELECT DISTINCT 'buyer', buyer_id FROM awards WHERE buyer_id IS NOT NULL;
