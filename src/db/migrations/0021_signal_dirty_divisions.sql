-- Incremental renewal signals per buyer x CPV division (docs/signals.md): a signal of division D depends only
-- on its buyer's awards in D and tenders listing D, so an ingest run recomputes the pairs it touched rather than
-- every signal of every buyer it touched (at 1M awards, 10,000 new entries touched 405 of 410 buyers).

-- The division of an award's CPV as the rules read it (analytics/renewals/rules.ts cpvDivision): the first two
-- digits of a code that starts with eight, else none.
CREATE OR REPLACE FUNCTION cpv_division(cpv text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN cpv ~ '^[0-9]{8}' THEN left(cpv, 2) END $$;

-- The divisions of a tender as the re-tender index reads them (queries/renewals.ts loadBuyerEvidence).
CREATE OR REPLACE FUNCTION cpv_divisions(cpv_all text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT ARRAY(SELECT DISTINCT left(code, 2) FROM unnest(cpv_all) AS code WHERE code ~ '^[0-9]{2}' ORDER BY 1) $$;

CREATE TABLE renewal_signals_dirty_pairs (
  buyer_id bigint NOT NULL,
  division text   NOT NULL,
  PRIMARY KEY (buyer_id, division)
);

-- Buyers left dirty by the previous scheme keep every division they have evidence in.
INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
SELECT DISTINCT t.buyer_id, d.division
  FROM renewal_signals_dirty r
  JOIN tenders t ON t.buyer_id = r.buyer_id
 CROSS JOIN LATERAL (
   SELECT unnest(cpv_divisions(t.cpv_all)) AS division
   UNION SELECT cpv_division(t.cpv_main)
   UNION SELECT cpv_division(a.cpv) FROM awards a WHERE a.tender_id = t.id
 ) AS d
 WHERE d.division IS NOT NULL
ON CONFLICT DO NOTHING;

DROP TRIGGER tenders_signals_ins ON tenders;
DROP TRIGGER tenders_signals_upd ON tenders;
DROP TRIGGER tenders_signals_del ON tenders;
DROP TRIGGER awards_signals_ins ON awards;
DROP TRIGGER awards_signals_upd ON awards;
DROP TRIGGER awards_signals_del ON awards;
DROP FUNCTION renewal_signals_mark_buyers();
DROP FUNCTION renewal_signals_mark_award_buyers();
DROP TABLE renewal_signals_dirty;

-- A tender row marks its buyer in every division it can bear on: those it lists (re-tenders), its main CPV's
-- and its awards' (their evidence reads the tender's reference, duration, framework flag, main CPV and whether
-- it is searchable). Old and new rows both mark, so a tender moving buyer or division leaves neither stale.
-- (Transition tables are visible only to the trigger function's own statements, hence one statement per table.)
CREATE OR REPLACE FUNCTION renewal_signals_mark_tenders() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
    SELECT DISTINCT t.buyer_id, d.division
      FROM new_rows t
     CROSS JOIN LATERAL (
       SELECT unnest(cpv_divisions(t.cpv_all)) AS division
       UNION SELECT cpv_division(t.cpv_main)
       UNION SELECT cpv_division(a.cpv) FROM awards a WHERE a.tender_id = t.id
     ) AS d
     WHERE t.buyer_id IS NOT NULL AND d.division IS NOT NULL
    ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
    SELECT DISTINCT t.buyer_id, d.division
      FROM old_rows t
     CROSS JOIN LATERAL (
       SELECT unnest(cpv_divisions(t.cpv_all)) AS division
       UNION SELECT cpv_division(t.cpv_main)
       UNION SELECT cpv_division(a.cpv) FROM awards a WHERE a.tender_id = t.id
     ) AS d
     WHERE t.buyer_id IS NOT NULL AND d.division IS NOT NULL
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- An award row marks the pair its evidence belongs to: its tender's buyer (the award's own when the tender is
-- gone) and the division of its CPV, else of its tender's main CPV.
CREATE OR REPLACE FUNCTION renewal_signals_mark_awards() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
    SELECT DISTINCT coalesce(t.buyer_id, a.buyer_id), cpv_division(coalesce(a.cpv, t.cpv_main))
      FROM new_rows a
      LEFT JOIN tenders t ON t.id = a.tender_id
     WHERE coalesce(t.buyer_id, a.buyer_id) IS NOT NULL AND cpv_division(coalesce(a.cpv, t.cpv_main)) IS NOT NULL
    ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
    SELECT DISTINCT coalesce(t.buyer_id, a.buyer_id), cpv_division(coalesce(a.cpv, t.cpv_main))
      FROM old_rows a
      LEFT JOIN tenders t ON t.id = a.tender_id
     WHERE coalesce(t.buyer_id, a.buyer_id) IS NOT NULL AND cpv_division(coalesce(a.cpv, t.cpv_main)) IS NOT NULL
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- The incumbent's name is part of a signal's basis: a renamed company marks the pairs of the awards it won.
CREATE OR REPLACE FUNCTION renewal_signals_mark_company_names() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
  SELECT DISTINCT t.buyer_id, cpv_division(coalesce(a.cpv, t.cpv_main))
    FROM new_rows n
    JOIN old_rows o ON o.id = n.id
    JOIN awards a ON a.winner_company_id = n.id
    JOIN tenders t ON t.id = a.tender_id
   WHERE o.name IS DISTINCT FROM n.name
     AND t.buyer_id IS NOT NULL AND cpv_division(coalesce(a.cpv, t.cpv_main)) IS NOT NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER tenders_signals_ins AFTER INSERT ON tenders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_tenders();
CREATE TRIGGER tenders_signals_upd AFTER UPDATE ON tenders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_tenders();
CREATE TRIGGER tenders_signals_del AFTER DELETE ON tenders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_tenders();
CREATE TRIGGER awards_signals_ins AFTER INSERT ON awards
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_awards();
CREATE TRIGGER awards_signals_upd AFTER UPDATE ON awards
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_awards();
CREATE TRIGGER awards_signals_del AFTER DELETE ON awards
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_awards();
CREATE TRIGGER companies_signals_upd AFTER UPDATE ON companies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_company_names();
