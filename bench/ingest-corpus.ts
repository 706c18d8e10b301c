import type { Db } from "../src/db/client.ts";
import { ingestPlacsp } from "../src/ingest/placsp/ingest-placsp.ts";
import type { Logger } from "../src/lib/logger.ts";
import type { IngestOutcome } from "./api-types.ts";

/**
 * Ingests a pre-generated synthetic corpus directory through the real PLACSP pipeline and counts what it did:
 * the one ingest the benchmarks time, whether in a worker of its own (bench/workers/ingest-placsp.ts) or inside
 * the API worker while it serves searches (PGlite has one connection per process).
 */
export async function ingestCorpus(
  db: Db,
  dir: string,
  log: Logger,
): Promise<Omit<IngestOutcome, "peakRssMb">> {
  const started = performance.now();
  const summary = await ingestPlacsp(
    { db, log, now: () => new Date() },
    {
      source: dir,
      feed: "643",
      since: null,
      maxPages: null,
      batchSize: 500,
      http: { userAgent: "bench", timeoutMs: 1000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const entries = summary.entriesNew + summary.entriesUpdated + summary.entriesUnchanged;
  return {
    entries,
    entriesNew: summary.entriesNew,
    entriesUpdated: summary.entriesUpdated,
    entriesUnchanged: summary.entriesUnchanged,
    errors: summary.errors,
    seconds,
    entriesPerSecond: entries / seconds,
  };
}
