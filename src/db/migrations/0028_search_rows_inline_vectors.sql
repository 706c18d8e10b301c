-- Search rows keep their text vector in the row (docs/search.md, "The relation"). PostgreSQL moves a row's largest
-- values out of line (TOAST) once the row passes about 2 kB, which a search row does when its title and description
-- are long: 4.4 % of the benchmark's million award rows, and 22 % of the rows a probe for "ciberseguridad" reads
-- (long texts hold more words). Each of those rows then costs a lookup in the TOAST table's index and a read of its
-- chunks every time its vector is tested or ranked: at a million awards, ranking the 15,867 rows of that probe cost
-- 44 ms more than reading their dates with the vectors out of line, 5 ms with them in the row (docs/search.md).
-- A toast_tuple_target of 8160 (its maximum: a page less its header) leaves whole every row that fits in a page;
-- a larger row is still compressed and moved out of line, as before.
ALTER TABLE search_rows SET (toast_tuple_target = 8160);

-- Rows written before it: fresh copies of their values are written back, in the row. Only a row of more than 2,000
-- bytes can have a value out of line (pg_column_size of the whole row counts its values as if inline). The copies
-- equal the values (`tsv || ''` is the same vector, `array_cat(a, '{}')` the same array), so no count, winner or
-- index entry changes meaning.
UPDATE search_rows s
   SET tsv = s.tsv || ''::tsvector,
       cpv_prefixes = array_cat(s.cpv_prefixes, '{}'::text[])
 WHERE pg_column_size(s.*) > 2000;
