-- Cross-source linking: a Spanish above-threshold procedure is published on PLACSP and on TED. When the evidence
-- is strong (docs/linking.md), the TED tender is linked to the PLACSP one: it keeps its own row and provenance,
-- but search, company and buyer aggregates count the procedure once, through the PLACSP side.
CREATE TABLE tender_links (
  tender_id    bigint PRIMARY KEY REFERENCES tenders (id) ON DELETE CASCADE,
  canonical_id bigint NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  rule         text NOT NULL CHECK (rule IN ('reference', 'file_number', 'award_match')),
  evidence     jsonb NOT NULL,
  linked_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (tender_id <> canonical_id)
);
CREATE INDEX tender_links_canonical_idx ON tender_links (canonical_id);

-- Denormalized flags for the read paths: a linked tender, and the awards of a linked tender (duplicates of the
-- canonical side's awards), are skipped by search and by every aggregate.
ALTER TABLE tenders ADD COLUMN linked_to bigint REFERENCES tenders (id) ON DELETE SET NULL;
ALTER TABLE awards ADD COLUMN superseded boolean NOT NULL DEFAULT false;
CREATE INDEX tenders_folder_idx ON tenders (folder_id) WHERE folder_id IS NOT NULL;

-- A change of `superseded` changes the aggregates of the award's winner and buyer: mark them for refresh.
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
       AND (o.winner_company_id, o.buyer_id, o.award_date, o.value, o.currency, o.value_is_ceiling, o.cpv,
            o.superseded)
           IS DISTINCT FROM
           (n.winner_company_id, n.buyer_id, n.award_date, n.value, n.currency, n.value_is_ceiling, n.cpv,
            n.superseded);
  END IF;
  RETURN NULL;
END
$$;
