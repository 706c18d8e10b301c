-- Support for GET /v1/companies/{id}/opportunities (docs/decisions.md, Opportunities).

-- The company's history profile (buyers, CPVs, median EUR value) reads every award of the company and of its
-- joint ventures: a big winner has tens of thousands. Covering them lets the profile be an index-only scan
-- instead of one heap page per award (measured on 1M synthetic awards, a 23,572-award winner: 127 ms cold with
-- awards_winner_idx and heap fetches, 7 ms for the scan itself with this index).
CREATE INDEX awards_winner_profile_idx ON awards (winner_company_id)
  INCLUDE (buyer_id, cpv, value, currency, value_is_ceiling)
  WHERE NOT superseded;

-- The candidate window (published within 90 days, or a deadline ahead) of tenders that can still be open:
-- not tombstoned, not linked to another procedure, and not in a closed PLACSP status. Closed tenders are most
-- of any window once the folders of the last months have been awarded, and all of the history; these partial
-- indexes never visit them. The query repeats the predicate word for word so the planner can prove it.
CREATE INDEX tenders_open_publication_idx ON tenders (publication_date)
  WHERE deleted_at IS NULL AND linked_to IS NULL AND (status IS NULL OR status NOT IN ('ADJ', 'RES', 'ANUL'));
CREATE INDEX tenders_open_deadline_idx ON tenders (deadline)
  WHERE deleted_at IS NULL AND linked_to IS NULL AND (status IS NULL OR status NOT IN ('ADJ', 'RES', 'ANUL'));
