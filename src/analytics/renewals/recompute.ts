import type { Db } from "../../db/client.ts";
import {
  allowRecomputeMemory,
  deleteAllSignals,
  deleteSignalsById,
  deleteSignalsEndedBefore,
  disableJit,
  listBuyersWithTenders,
  loadBuyerEvidence,
  lockSignalRecompute,
  signalContentHash,
  storedSignalHashes,
  takeDirtySignalPairs,
  writeSignals,
} from "../../db/queries/renewals.ts";
import { EXPIRY_WINDOWS } from "../../domain/renewals/signal.ts";
import { addDays, calendarDate } from "../../lib/calendar.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Progress } from "../../lib/progress.ts";
import { type ComputedSignal, computeBuyerSignals } from "./rules.ts";

export interface RecomputeSignalsResult {
  /** Buyers whose signals were recomputed (all of them or some of their CPV divisions). */
  buyers: number;
  /** Buyer x CPV division pairs recomputed (incremental only; null for a full recompute). */
  pairs: number | null;
  /** Signals computed for them (all of their current signals). */
  signals: number;
  /**
   * Rows written: every signal on a full recompute; on an incremental one, the new signals and those whose
   * columns changed (an unchanged signal is not rewritten).
   */
  written: number;
  /** Stored signals of the recomputed pairs that are no longer derived or retained, deleted (incremental). */
  removed: number;
  full: boolean;
  ms: number;
  /**
   * Where the time went, in ms: reading the evidence, computing the signals, comparing them with the stored
   * ones (incremental: their digests, and deleting those no longer derived), writing, the retention delete
   * (incremental), and the rest (the lock, taking the marks, a full recompute's delete, the commit).
   */
  phases: {
    evidence: number;
    compute: number;
    diff: number;
    write: number;
    retention: number;
    other: number;
  };
}

/**
 * Signals whose window ended more than this many days ago are not kept: they are no longer forecasts, every
 * reader asks for windows not over (opportunities look back 90 days, hence the margin), and the backtest
 * recomputes the past in memory. Without it the table would hold every contract ever awarded (940,000 rows,
 * 1.3 GB at 1M awards, 94 % of them past).
 */
export const SIGNAL_RETENTION_DAYS = 90;

/** Buyers loaded per evidence query: bounds memory on a large database while keeping round trips few. */
const BUYERS_PER_CHUNK = 1_000;
/** Signals per INSERT statement. */
const SIGNALS_PER_INSERT = 2_000;

/**
 * Brings renewal_signals up to date. Incremental by default: triggers on tenders, awards and company names mark
 * the buyer x CPV division pairs whose evidence changed (migration 0021), and only their signals are
 * recomputed, which gives the same table as a full recompute because the signals of a division depend only on
 * its buyer's awards in that division and tenders listing it (analytics/renewals/rules.ts). `full`
 * recomputes every buyer (`npm run cli -- signals`, or after a rule change). Both keep the signals whose window
 * ends on or after `now`'s day minus SIGNAL_RETENTION_DAYS. One transaction: readers see the
 * previous signals until the new ones are complete; concurrent recomputations queue on an advisory lock.
 */
export async function recomputeSignals({
  db,
  log,
  now,
  full = false,
  progress,
}: {
  db: Db;
  log: Logger;
  /** The clock: signals whose window ended SIGNAL_RETENTION_DAYS before its day are not kept. */
  now: Clock;
  full?: boolean;
  progress?: Progress;
}): Promise<RecomputeSignalsResult> {
  const keepFrom = addDays(calendarDate(now()), -SIGNAL_RETENTION_DAYS);
  const started = performance.now();
  const phases = { evidence: 0, compute: 0, diff: 0, write: 0, retention: 0, other: 0 };
  let mark = started;
  /** Adds the time since the previous call to a phase. */
  const lap = (phase: keyof typeof phases) => {
    const at = performance.now();
    phases[phase] += at - mark;
    mark = at;
  };
  const counts = await db.transaction(async (tx) => {
    await lockSignalRecompute(tx);
    await allowRecomputeMemory(tx);
    if (!full) {
      await disableJit(tx);
    }
    const dirty = await takeDirtySignalPairs(tx);
    const buyers = full ? await listBuyersWithTenders(tx) : dirty;
    if (full) {
      await deleteAllSignals(tx);
    }
    let removed = 0;
    let computed = 0;
    let written = 0;
    for (let i = 0; i < buyers.length; i += BUYERS_PER_CHUNK) {
      lap("other");
      const evidence = await loadBuyerEvidence(tx, buyers.slice(i, i + BUYERS_PER_CHUNK));
      lap("evidence");
      const signals: ComputedSignal[] = evidence.flatMap((buyer) =>
        computeBuyerSignals(buyer, EXPIRY_WINDOWS, keepFrom),
      );
      lap("compute");
      // Incremental: the same slice of pairs as the evidence's (`buyers` is `dirty`). Signals no longer derived
      // go; of the others only the new and changed are written, by digest (migration 0024).
      let changed = signals;
      if (!full) {
        const stored = await storedSignalHashes(tx, dirty.slice(i, i + BUYERS_PER_CHUNK));
        const derived = new Set(signals.map((s) => s.id));
        removed += await deleteSignalsById(
          tx,
          [...stored.keys()].filter((id) => !derived.has(id)),
        );
        changed = signals.filter((s) => stored.get(s.id) !== signalContentHash(s));
      }
      lap("diff");
      for (let j = 0; j < changed.length; j += SIGNALS_PER_INSERT) {
        await writeSignals(tx, changed.slice(j, j + SIGNALS_PER_INSERT), full ? "insert" : "upsert");
      }
      lap("write");
      written += changed.length;
      computed += signals.length;
      progress?.report(
        () =>
          `${Math.min(i + BUYERS_PER_CHUNK, buyers.length)} of ${buyers.length} buyers, ${computed} signals`,
      );
    }
    // Untouched buyers' signals age too: the same retention applies to every row, so an incremental step leaves
    // the table a full recompute would.
    lap("other");
    if (!full) {
      await deleteSignalsEndedBefore(tx, keepFrom);
    }
    lap("retention");
    const pairs = full ? null : dirty.reduce((sum, buyer) => sum + buyer.divisions.length, 0);
    return { buyers: buyers.length, pairs, signals: computed, written, removed };
  });
  lap("other"); // the commit
  const result: RecomputeSignalsResult = {
    ...counts,
    full,
    ms: Math.round(performance.now() - started),
    phases: {
      evidence: Math.round(phases.evidence),
      compute: Math.round(phases.compute),
      diff: Math.round(phases.diff),
      write: Math.round(phases.write),
      retention: Math.round(phases.retention),
      other: Math.round(phases.other),
    },
  };
  log.info(result, "renewal signals recomputed");
  return result;
}
