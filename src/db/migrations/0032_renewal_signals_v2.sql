-- Renewal signals, version 2 of the basis (docs/signals.md): competed procedures only, one signal per procedure
-- and division, windows from the call lead, yearly recurrence per CPV class. Every stored signal was computed by
-- the first heuristic and is removed; every buyer x division pair with evidence is marked, so the recompute that
-- follows the next ingest run (or `npm run cli -- signals`) writes the new ones. Until then none is listed.
DELETE FROM renewal_signals;

INSERT INTO renewal_signals_dirty_pairs (buyer_id, division)
SELECT DISTINCT t.buyer_id, d.division
  FROM tenders t
 CROSS JOIN LATERAL (
   SELECT unnest(cpv_divisions(t.cpv_all)) AS division
   UNION SELECT cpv_division(t.cpv_main)
   UNION SELECT cpv_division(a.cpv) FROM awards a WHERE a.tender_id = t.id
 ) AS d
 WHERE t.buyer_id IS NOT NULL AND d.division IS NOT NULL
ON CONFLICT DO NOTHING;
