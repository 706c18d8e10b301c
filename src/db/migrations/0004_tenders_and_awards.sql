-- Tenders: one row per (source, source_ref), holding the state of the newest upstream version.
CREATE TABLE tenders (
  id                 bigserial PRIMARY KEY,
  source             text NOT NULL CHECK (source IN ('placsp', 'ted')),
  source_ref         text NOT NULL,
  feed               text,
  folder_id          text,
  notice_type        text,
  publication_date   date,
  title              text,
  description        text,
  cpv_main           text,
  cpv_all            text[] NOT NULL DEFAULT '{}',
  contract_type      text,
  procedure_type     text,
  deadline           timestamptz,
  estimated_value    numeric(20, 2),
  currency           text,
  nuts               text,
  url                text,
  status             text,
  framework          boolean NOT NULL DEFAULT false,
  duration_months    numeric(10, 2),
  buyer_id           bigint REFERENCES buyers (id),
  upstream_updated   timestamptz NOT NULL,
  raw_hash           text NOT NULL,
  deleted_at         timestamptz,
  deletion_reason    text,
  is_synthetic       boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  cpv_prefixes       text[] GENERATED ALWAYS AS (cpv_prefix_set(cpv_all)) STORED,
  -- Spanish full text over unaccented title + description: stemming, accent- and case-insensitive.
  tsv                tsvector GENERATED ALWAYS AS (
                       to_tsvector('spanish'::regconfig,
                         immutable_unaccent(coalesce(title, '') || ' ' || coalesce(description, '')))
                     ) STORED,
  UNIQUE (source, source_ref)
);
CREATE INDEX tenders_tsv_idx ON tenders USING gin (tsv);
CREATE INDEX tenders_cpv_prefixes_idx ON tenders USING gin (cpv_prefixes);
CREATE INDEX tenders_publication_idx ON tenders (publication_date DESC, id DESC);
CREATE INDEX tenders_deadline_idx ON tenders (deadline);
CREATE INDEX tenders_buyer_idx ON tenders (buyer_id);
CREATE INDEX tenders_nuts_idx ON tenders (nuts text_pattern_ops);

-- Every distinct upstream version of a tender (identical re-publications are skipped by hash).
-- Modifications between versions are renewal evidence.
CREATE TABLE tender_versions (
  id               bigserial PRIMARY KEY,
  tender_id        bigint NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  upstream_updated timestamptz NOT NULL,
  status           text,
  notice_type      text,
  raw_hash         text NOT NULL,
  recorded_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tender_id, raw_hash)
);
CREATE INDEX tender_versions_tender_idx ON tender_versions (tender_id, upstream_updated);

-- One row per lot result (and per winner where a lot has several). award_key is stable across versions of
-- the tender (lot + winner), so award ids survive re-publication.
CREATE TABLE awards (
  id                bigserial PRIMARY KEY,
  tender_id         bigint NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  award_key         text NOT NULL,
  source            text NOT NULL CHECK (source IN ('placsp', 'ted')),
  source_ref        text,
  lot               text,
  result_code       text,
  award_date        date,
  winner_company_id bigint REFERENCES companies (id),
  winner_name       text,
  winner_nif        text,
  value             numeric(20, 2),
  value_payable     numeric(20, 2),
  currency          text,
  bidders_count     integer CHECK (bidders_count >= 0),
  framework         boolean NOT NULL DEFAULT false,
  value_is_ceiling  boolean NOT NULL DEFAULT false,
  duration_months   numeric(10, 2),
  start_date        date,
  end_date          date,
  contract_signed   boolean NOT NULL DEFAULT false,
  cpv               text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tender_id, award_key)
);
CREATE INDEX awards_winner_idx ON awards (winner_company_id, award_date DESC, id DESC);
CREATE INDEX awards_date_idx ON awards (award_date DESC, id DESC);
CREATE INDEX awards_start_idx ON awards (start_date DESC, id DESC) WHERE contract_signed;
