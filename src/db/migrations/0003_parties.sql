-- Buyers (contracting authorities) and companies (winners). Matched by normalized tax id first, by exact
-- normalized name only when no valid tax id is known. Every raw name seen is kept as an alias.
CREATE TABLE buyers (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  name_norm   text NOT NULL,
  nif         text,
  dir3        text[] NOT NULL DEFAULT '{}',
  platform_id text,
  country     text,
  nuts        text,
  org_type    text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX buyers_nif_key ON buyers (nif) WHERE nif IS NOT NULL;
CREATE INDEX buyers_name_norm_idx ON buyers (name_norm);
CREATE INDEX buyers_name_trgm_idx ON buyers USING gin (name_norm gin_trgm_ops);

CREATE TABLE buyer_identifiers (
  buyer_id bigint NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
  scheme   text NOT NULL,
  value    text NOT NULL,
  PRIMARY KEY (scheme, value)
);
CREATE INDEX buyer_identifiers_buyer_idx ON buyer_identifiers (buyer_id);

CREATE TABLE buyer_aliases (
  buyer_id bigint NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
  alias    text NOT NULL,
  PRIMARY KEY (buyer_id, alias)
);

CREATE TABLE companies (
  id               bigserial PRIMARY KEY,
  name             text NOT NULL,
  name_norm        text NOT NULL,
  nif              text,
  country          text,
  is_joint_venture boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX companies_nif_key ON companies (nif) WHERE nif IS NOT NULL;
CREATE INDEX companies_name_norm_idx ON companies (name_norm);
CREATE INDEX companies_name_trgm_idx ON companies USING gin (name_norm gin_trgm_ops);

-- scheme: nif (normalized Spanish tax id), ted / placsp (the source's own reference), or another national id.
CREATE TABLE company_identifiers (
  company_id bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  scheme     text NOT NULL,
  value      text NOT NULL,
  PRIMARY KEY (scheme, value)
);
CREATE INDEX company_identifiers_company_idx ON company_identifiers (company_id);

CREATE TABLE company_aliases (
  company_id bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  alias      text NOT NULL,
  PRIMARY KEY (company_id, alias)
);

-- Joint ventures (UTE) are companies of their own, linked to their members, never merged into them.
CREATE TABLE company_members (
  group_id  bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  member_id bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, member_id),
  CHECK (group_id <> member_id)
);
CREATE INDEX company_members_member_idx ON company_members (member_id);
