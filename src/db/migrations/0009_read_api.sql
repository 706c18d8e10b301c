-- Read-side support for the API (search, companies, buyers).

-- Awards carry their tender's buyer, so "awards of this buyer, newest first" is one index range scan.
ALTER TABLE awards ADD COLUMN buyer_id bigint REFERENCES buyers (id);
UPDATE awards a SET buyer_id = t.buyer_id FROM tenders t WHERE t.id = a.tender_id;

-- Lists are ordered by date descending with unknown dates last, then id descending: the indexes say the same.
DROP INDEX awards_winner_idx;
DROP INDEX awards_date_idx;
DROP INDEX awards_start_idx;
DROP INDEX tenders_publication_idx;
CREATE INDEX awards_winner_idx ON awards (winner_company_id, award_date DESC NULLS LAST, id DESC);
CREATE INDEX awards_buyer_idx ON awards (buyer_id, award_date DESC NULLS LAST, id DESC);
CREATE INDEX awards_date_idx ON awards (award_date DESC NULLS LAST, id DESC);
CREATE INDEX awards_start_idx ON awards (start_date DESC NULLS LAST, id DESC) WHERE contract_signed;
CREATE INDEX awards_tender_idx ON awards (tender_id);
CREATE INDEX tenders_publication_idx ON tenders (publication_date DESC NULLS LAST, id DESC);

-- Name fragments (search `buyer=` / `company=`) are matched case- and accent-insensitively against every
-- name a party was published under, through trigram indexes on the folded alias.
CREATE INDEX company_aliases_fold_trgm_idx ON company_aliases USING gin (fold_name(alias) gin_trgm_ops);
CREATE INDEX buyer_aliases_fold_trgm_idx ON buyer_aliases USING gin (fold_name(alias) gin_trgm_ops);

-- Aggregates that are expensive per request are materialized after each ingest run.
CREATE TABLE company_stats (
  company_id          bigint PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
  wins                integer NOT NULL,
  total_value         numeric(22, 2),
  ceilings_excluded   integer NOT NULL,
  top_cpvs            jsonb NOT NULL,
  top_buyers          jsonb NOT NULL,
  refreshed_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE buyer_stats (
  buyer_id            bigint PRIMARY KEY REFERENCES buyers (id) ON DELETE CASCADE,
  awards_total        integer NOT NULL,
  top3_share_by_count numeric(6, 4),
  top3_share_by_value numeric(6, 4),
  recurrence          jsonb NOT NULL,
  refreshed_at        timestamptz NOT NULL DEFAULT now()
);
