-- What idempotent, order-independent ingestion needs beyond the first storage cut.

-- Tombstones are kept on their own: an archive can deliver the deletion before the entry it deletes, and a
-- re-published entry newer than the deletion revives the tender. The tender's deleted_at is derived from these.
CREATE TABLE tender_tombstones (
  source     text NOT NULL CHECK (source IN ('placsp', 'ted')),
  source_ref text NOT NULL,
  deleted_at timestamptz NOT NULL,
  reason     text,
  PRIMARY KEY (source, source_ref, deleted_at)
);

-- Parties without a valid tax id are matched on their exact normalized name only among themselves; the unique
-- index makes that match safe when two ingestion processes meet the same new name at once.
CREATE UNIQUE INDEX companies_name_norm_without_nif_key ON companies (name_norm) WHERE nif IS NULL;

-- Raw names as published by each source, for display of aliases and for re-matching when rules change.
ALTER TABLE company_aliases ADD COLUMN first_seen timestamptz NOT NULL DEFAULT now();
ALTER TABLE buyer_aliases ADD COLUMN first_seen timestamptz NOT NULL DEFAULT now();

-- Tenders remember the cross-source reference the notice gives (PLACSP UUID[@schemeName=TED]) for linking.
ALTER TABLE tenders ADD COLUMN cross_ref text;
CREATE INDEX tenders_cross_ref_idx ON tenders (cross_ref) WHERE cross_ref IS NOT NULL;
