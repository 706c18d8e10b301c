-- A digest of each renewal signal's stored columns (db/queries/renewals.ts, signalContentHash). An incremental
-- recompute reads the digests of the divisions it recomputes and writes only the signals whose digest changed:
-- comparing whole rows in SQL meant sending every computed signal (11,662 of them, ~1 KB of basis each, after a
-- 10,000-entry ingest at 1M awards) to rewrite 636, and took 1.1-1.6 s of a 5 s budget. Null on rows written
-- before this migration: they count as changed once.
ALTER TABLE renewal_signals ADD COLUMN content_hash text;
