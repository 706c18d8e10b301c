-- Columns that no query filters, joins or groups on are not analysed: they are payload, read back as they are
-- (a signal's basis and provenance, a company's or buyer's aggregates and opportunity profile). ANALYZE otherwise
-- sorts and summarises every sampled value of each (jsonb comparisons, array elements), for statistics no plan
-- reads. On the embedded engine that ANALYZE runs after ingest runs on the serving thread, one statement a request
-- waits for whole: `renewal_signals`'s was the longest statement of the maintenance after a run, 0.5-0.9 s at
-- 100,000 awards (bench/results/maintain-embedded.md). Keys and every filtered column keep their statistics.
ALTER TABLE renewal_signals
  ALTER COLUMN basis SET STATISTICS 0,
  ALTER COLUMN evidence_tender_ids SET STATISTICS 0,
  ALTER COLUMN content_hash SET STATISTICS 0;
ALTER TABLE company_stats
  ALTER COLUMN top_cpvs SET STATISTICS 0,
  ALTER COLUMN top_buyers SET STATISTICS 0,
  ALTER COLUMN profile_buyers SET STATISTICS 0,
  ALTER COLUMN profile_cpvs SET STATISTICS 0;
ALTER TABLE buyer_stats
  ALTER COLUMN recurrence SET STATISTICS 0;
