-- Extensions and immutable helper functions used by generated columns and indexes.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE (it depends on the search_path to find its dictionary), so it cannot be used in
-- an index or a generated column. Naming the dictionary explicitly makes the result depend on its input only,
-- which is what IMMUTABLE promises.
CREATE OR REPLACE FUNCTION immutable_unaccent(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, value) $$;

-- Lower-cased, unaccented, punctuation collapsed to single spaces: the form party names are matched on.
CREATE OR REPLACE FUNCTION fold_name(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT btrim(regexp_replace(lower(public.immutable_unaccent(value)), '[^a-z0-9]+', ' ', 'g')) $$;

-- Every prefix of 2..8 digits of each CPV code, so that "72" or "7231" is answered by a GIN index lookup.
CREATE OR REPLACE FUNCTION cpv_prefix_set(codes text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT coalesce(array_agg(DISTINCT left(code, n) ORDER BY left(code, n)), '{}')
    FROM unnest(codes) AS code, generate_series(2, 8) AS n
    WHERE length(code) >= n
  $$;
