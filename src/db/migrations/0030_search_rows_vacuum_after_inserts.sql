-- The search relations are vacuumed after every 1,000 inserted rows, as the embedded engine's maintenance already
-- does (analytics/maintain-embedded.ts; docs/search.md, "Maintenance"). Searches list the newest rows first
-- through index-only scans, which read the table for every row on a page the visibility map does not mark
-- all-visible, and only a vacuum marks it. The rows an ingest inserts are the newest, so they are what every such
-- search reads first; but autovacuum's default insert threshold is 1,000 + 20 % of the table (500,000 rows at a
-- million awards), so on PostgreSQL they stayed unmarked for weeks of ingests. Measured at a million awards after
-- three ingests of 10,000 entries (5,486 of 237,134 pages not all-visible), in-process medians before and after
-- one VACUUM: the newest awards 5.3-5.9 -> 3.4-3.5 ms (heap fetches 10,001 -> 0), tenders in a region 14.8-16.8 ->
-- 8.8 ms (20,646 -> 0); searches through GIN unchanged. That vacuum reads only the pages written since the last
-- one (5,834 pages) and each GIN index once, in an autovacuum worker.
ALTER TABLE search_rows SET (autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0);
ALTER TABLE search_tender_winners SET (autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0);
