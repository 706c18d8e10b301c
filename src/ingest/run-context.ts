import type { Db } from "../db/client.ts";
import {
  addToIngestRun,
  finishIngestRun,
  insertIngestErrors,
  type RunCounters,
  startIngestRun,
} from "../db/queries/ingest-runs.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { type Progress, ratePerSecond } from "../lib/progress.ts";
import { applyBatch, type BatchInput, type BatchOutcome, isSynthetic } from "./apply-batch.ts";

export interface IngestDeps {
  db: Db;
  log: Logger;
  now: Clock;
  /**
   * Refuse synthetic entries (recorded as entry errors, never written): set where the service takes real
   * payments, so that no paid answer is ever built from the synthetic corpus (the server's import folder).
   */
  refuseSynthetic?: boolean;
  /** Told after every committed batch (the CLI prints throttled progress lines from it). */
  progress?: Progress;
  /**
   * Parse PLACSP pages on a worker thread of the run's own (placsp/parse-thread.ts): set by the server, whose
   * thread answers requests; the CLI parses inline.
   */
  parseThread?: boolean;
}

/**
 * Entries per batch transaction on a view with short transactions (`Db.shortTransactions`). At 100,000 awards, with a
 * search every 150 ms, batches of 500 made the searches during the ingest wait for them (p95 4.13× their steady state),
 * batches of 100 still 2.10× (each took longer than the gap between the ingest's turn and the next search), 25
 * 1.26–1.55×, for an ingest at about half the speed (bench/results/api.md, "PGlite during an ingest: an idle
 * instance").
 */
export const SHORT_TRANSACTION_ENTRIES = 25;

const SYNTHETIC_REFUSED =
  "synthetic entry refused: this server takes real payments (PAYMENTS_MODE=x402); load synthetic data only " +
  "into a dev-mode database";

/** The batch without its synthetic entries, which become entry failures. */
function withoutSynthetic(batch: BatchInput): BatchInput {
  const refused = batch.versions.filter((v) => isSynthetic(v.tender.source, v.tender.sourceRef));
  if (refused.length === 0) {
    return batch;
  }
  return {
    ...batch,
    versions: batch.versions.filter((v) => !isSynthetic(v.tender.source, v.tender.sourceRef)),
    tombstones: batch.tombstones.filter((t) => !isSynthetic(t.source, t.sourceRef)),
    failures: [
      ...batch.failures,
      ...refused.map((v) => ({ entryRef: v.tender.sourceRef, reason: SYNTHETIC_REFUSED })),
    ],
  };
}

/**
 * One ingest run: its `ingest_runs` row, its running totals, and the one way data gets written — a batch
 * applied in a transaction together with its error rows and its share of the run counters, so a run killed
 * at any point leaves either the whole batch or nothing.
 */
export class IngestRun {
  readonly id: number;
  readonly totals: RunCounters = {
    pages: 0,
    entriesNew: 0,
    entriesUpdated: 0,
    entriesUnchanged: 0,
    errors: 0,
  };
  newest: { updated: string; ref: string } | null = null;
  private readonly deps: IngestDeps;
  private readonly startedMs = Date.now();

  private constructor(deps: IngestDeps, id: number) {
    this.deps = deps;
    this.id = id;
  }

  static async start(
    deps: IngestDeps,
    run: { source: string; feed: string | null; location: string },
  ): Promise<IngestRun> {
    const id = await startIngestRun(deps.db, { ...run, startedAt: deps.now() });
    return new IngestRun(deps, id);
  }

  /**
   * Called between entries while a page is read: on the embedded engine, where the ingest shares the serving
   * thread, this is where requests take their turn (db/lanes.ts); elsewhere it resolves at once.
   */
  async pace(): Promise<void> {
    await this.deps.db.pace?.();
  }

  /**
   * How many entries one batch transaction may hold: `requested`, or at most SHORT_TRANSACTION_ENTRIES on a view
   * that asks for short transactions (the embedded engine's background lane, where requests wait for them).
   */
  batchLimit(requested: number): number {
    return this.deps.db.shortTransactions ? Math.min(requested, SHORT_TRANSACTION_ENTRIES) : requested;
  }

  /** Applies a batch; `pages` is how many pages this batch completes (0 or 1). */
  async commit(input: BatchInput, pages: number): Promise<BatchOutcome> {
    const batch = this.deps.refuseSynthetic ? withoutSynthetic(input) : input;
    const outcome = await this.deps.db.transaction(async (tx) => {
      const result = await applyBatch(tx, batch);
      const delta: RunCounters = {
        pages,
        entriesNew: result.entriesNew,
        entriesUpdated: result.entriesUpdated,
        entriesUnchanged: result.entriesUnchanged,
        errors: result.errors.length,
      };
      await insertIngestErrors(tx, this.id, result.errors);
      await addToIngestRun(tx, this.id, delta);
      return result;
    });
    this.totals.pages += pages;
    this.totals.entriesNew += outcome.entriesNew;
    this.totals.entriesUpdated += outcome.entriesUpdated;
    this.totals.entriesUnchanged += outcome.entriesUnchanged;
    this.totals.errors += outcome.errors.length;
    if (outcome.newest && (!this.newest || outcome.newest.updated > this.newest.updated)) {
      this.newest = outcome.newest;
    }
    this.deps.progress?.report(() => {
      const t = this.totals;
      const entries = t.entriesNew + t.entriesUpdated + t.entriesUnchanged;
      return (
        `${t.pages} pages, ${entries} entries (${t.entriesNew} new, ${t.entriesUpdated} updated, ` +
        `${t.entriesUnchanged} unchanged, ${t.errors} errors), ${ratePerSecond(entries, this.startedMs)} entries/s`
      );
    });
    return outcome;
  }

  async finish(error?: unknown): Promise<void> {
    const message = error === undefined ? null : error instanceof Error ? error.message : String(error);
    await finishIngestRun(this.deps.db, this.id, {
      status: error === undefined ? "succeeded" : "failed",
      finishedAt: this.deps.now(),
      message,
    });
  }
}
