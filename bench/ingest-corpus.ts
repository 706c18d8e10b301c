import { pino } from "pino";
import type { Db } from "../src/db/client.ts";
import { ingestPlacsp } from "../src/ingest/placsp/ingest-placsp.ts";
import type { Logger } from "../src/lib/logger.ts";
import type { AfterIngestSteps, IngestOutcome } from "./api-types.ts";

/**
 * A logger that reads the timings the pipeline itself logs at the end of the run (afterIngestRun: the aggregate
 * refresh, then the incremental renewal-signal recompute, each logging its own `ms`) and passes warnings and
 * errors on to `log`. Reading them from the run, rather than re-running the steps afterwards, times the steps
 * that really followed the ingest, on the dirty marks it really left.
 */
function stepRecorder(log: Logger): { log: Logger; steps: AfterIngestSteps } {
  const steps: AfterIngestSteps = { statsMs: null, signals: null };
  const recorder = pino(
    { level: "info" },
    {
      write(line: string) {
        const event = JSON.parse(line) as {
          level: number;
          msg?: string;
          ms?: number;
          buyers?: number;
          pairs?: number;
          signals?: number;
          written?: number;
          removed?: number;
          phases?: Record<string, number>;
        };
        if (event.msg === "company and buyer stats refreshed" && typeof event.ms === "number") {
          steps.statsMs = event.ms;
        } else if (event.msg === "renewal signals recomputed" && typeof event.ms === "number") {
          steps.signals = {
            buyers: event.buyers ?? 0,
            pairs: event.pairs ?? 0,
            signals: event.signals ?? 0,
            written: event.written ?? 0,
            removed: event.removed ?? 0,
            ms: event.ms,
            ...(event.phases ? { phases: event.phases } : {}),
          };
        } else if (event.level >= 40) {
          log.warn(event, event.msg ?? "ingest warning");
        }
      },
    },
  );
  return { log: recorder, steps };
}

/**
 * Ingests a pre-generated synthetic corpus directory through the real PLACSP pipeline and counts what it did:
 * the one ingest the benchmarks time, whether in a worker of its own (bench/workers/ingest-placsp.ts) or inside
 * the API worker while it serves searches (PGlite has one connection per process).
 */
export async function ingestCorpus(
  db: Db,
  dir: string,
  log: Logger,
  options: { parseThread: boolean } = { parseThread: false },
): Promise<Omit<IngestOutcome, "peakRssMb">> {
  const recorder = stepRecorder(log);
  const started = performance.now();
  const summary = await ingestPlacsp(
    { db, log: recorder.log, now: () => new Date(), parseThread: options.parseThread },
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
    afterIngest: recorder.steps,
  };
}
