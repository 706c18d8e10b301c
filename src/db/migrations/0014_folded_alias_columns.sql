-- Name fragments (search `buyer=` / `company=`) are matched against the folded form of every alias. Folding
-- (unaccent + a regular expression) is the expensive part of that match, and the planner scans small alias
-- tables rather than use the trigram index, folding every alias on every search. Storing the folded form
-- makes a scan a plain LIKE over short strings and keeps the trigram index for large tables.
ALTER TABLE company_aliases ADD COLUMN alias_folded text GENERATED ALWAYS AS (fold_name(alias)) STORED;
ALTER TABLE buyer_aliases ADD COLUMN alias_folded text GENERATED ALWAYS AS (fold_name(alias)) STORED;
DROP INDEX company_aliases_fold_trgm_idx;
DROP INDEX buyer_aliases_fold_trgm_idx;
CREATE INDEX company_aliases_folded_trgm_idx ON company_aliases USING gin (alias_folded gin_trgm_ops);
CREATE INDEX buyer_aliases_folded_trgm_idx ON buyer_aliases USING gin (alias_folded gin_trgm_ops);
