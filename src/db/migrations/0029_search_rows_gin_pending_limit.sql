-- Search rows' GIN indexes keep a small pending list (docs/search.md, "Maintenance"). With fastupdate (on by
-- default) an insert or update adds its keys to the index's pending list, which every search through that index
-- then reads whole, until the list passes gin_pending_list_limit (4 MB by default) and the writer merges it into the
-- index, or a vacuum does. On a large relation autovacuum rarely comes (its insert threshold is a fifth of the
-- table: 500,000 rows at a million awards), so after ingests the text indexes carried a list of 150-500 pages
-- almost always, and a probed search at a million awards took 46-47 ms with 326 pages of it against 43-45 ms with
-- none. A 512 kB limit keeps the list under about 64 pages; ten thousand PLACSP entries ingested 1,363-1,516
-- entries/s with the default and 1,474-1,513 with the limit (bench/results/ingest-placsp.md): the writer merges
-- smaller lists more often for about the same work.
ALTER INDEX search_rows_award_tsv_idx SET (gin_pending_list_limit = 512);
ALTER INDEX search_rows_contract_tsv_idx SET (gin_pending_list_limit = 512);
ALTER INDEX search_rows_tender_tsv_idx SET (gin_pending_list_limit = 512);
ALTER INDEX search_rows_award_cpv_idx SET (gin_pending_list_limit = 512);
ALTER INDEX search_rows_contract_cpv_idx SET (gin_pending_list_limit = 512);
ALTER INDEX search_rows_tender_cpv_idx SET (gin_pending_list_limit = 512);
ALTER INDEX search_rows_tender_companies_idx SET (gin_pending_list_limit = 512);
