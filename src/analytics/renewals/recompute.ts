import type { Db, Queryable } from "../../db/client.ts";
import {
  allowRecomputeMemory,
  type BuyerDivisions,
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
  /** Transactions it took: 1 for a full recompute; on an incremental one, 1 unless `buyersPerTransaction` is set. */
  transactions: number;
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
 * Buyers per transaction of an incremental recompute on a database view with short transactions (the embedded
 * engine's background lane, db/lanes.ts): a request that arrives while one runs waits for all of it. At 100,000
 * awards one transaction for every dirty pair of a 10,000-entry ingest held the engine 1.16 s (405 buyers, about
 * 3 ms each); 4 buyers' pairs take about a hundredth of that (bench/results/api.md, "PGlite during an ingest: an
 * idle instance").
 */
export const SHORT_TRANSACTION_BUYERS = 4;

/** Counts of one transaction's buyers, summed into the result. */
interface Counts {
  buyers: number;
  pairs: number;
  signals: number;
  written: number;
  removed: number;
}

/**
 * Brings renewal_signals up to date. Incremental by default: triggers on tenders, awards and company names mark
 * the buyer x CPV division pairs whose evidence changed (migration 0021), and only their signals are
 * recomputed, which gives the same table as a full recompute because the signals of a division depend only on
 * its buyer's awards in that division and tenders listing it (analytics/renewals/rules.ts). `full`
 * recomputes every buyer (`npm run cli -- signals`, or after a rule change). Both keep the signals whose window
 * ends on or after `now`'s day minus SIGNAL_RETENTION_DAYS; concurrent recomputations queue on an advisory lock.
 *
 * A full recompute is one transaction: readers see the previous signals until the new ones are complete. An
 * incremental one takes `buyersPerTransaction` buyers' marks per transaction (all of them by default; on a view
 * with `shortTransactions`, SHORT_TRANSACTION_BUYERS): readers then see each buyer x division pair's signals
 * either all before or all after, some pairs done before others, as they already see the ingested rows before
 * their signals. A transaction that fails leaves its marks, and the next run takes them.
 */
export async function recomputeSignals({
  db,
  log,
  now,
  full = false,
  buyersPerTransaction = db.shortTransactions ? SHORT_TRANSACTION_BUYERS : null,
  progress,
}: {
  db: Db;
  log: Logger;
  /** The clock: signals whose window ended SIGNAL_RETENTION_DAYS before its day are not kept. */
  now: Clock;
  full?: boolean;
  /** Incremental only: at most this many buyers' pairs per transaction; null for all in one. */
  buyersPerTransaction?: number | null;
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
  const total: Counts = { buyers: 0, pairs: 0, signals: 0, written: 0, removed: 0 };
  let transactions = 0;
  for (let done = false; !done; ) {
    const counts = await db.transaction(async (tx) => {
      await lockSignalRecompute(tx);
      await allowRecomputeMemory(tx);
      if (!full) {
        await disableJit(tx);
      }
      // A full recompute takes every mark too: it recomputes their pairs along with the rest.
      const marked = await takeDirtySignalPairs(tx, full ? null : buyersPerTransaction);
      const dirty = full ? null : marked;
      const buyers = dirty ?? (await listBuyersWithTenders(tx));
      if (full) {
        await deleteAllSignals(tx);
      }
      const counts = await recomputeBuyers(tx, buyers, dirty, keepFrom, lap, (buyersDone, signals) =>
        progress?.report(
          () =>
            `${total.buyers + buyersDone}${full ? ` of ${buyers.length}` : ""} buyers, ` +
            `${total.signals + signals} signals`,
        ),
      );
      // The last transaction: fewer buyers than it could take. Untouched buyers' signals age too: the same
      // retention applies to every row, so an incremental step leaves the table a full recompute would.
      done = full || buyersPerTransaction === null || buyers.length < buyersPerTransaction;
      lap("other");
      if (done && !full) {
        await deleteSignalsEndedBefore(tx, keepFrom);
      }
      lap("retention");
      return counts;
    });
    lap("other"); // the commit
    transactions += 1;
    for (const key of Object.keys(total) as (keyof Counts)[]) {
      total[key] += counts[key];
    }
  }
  const result: RecomputeSignalsResult = {
    ...total,
    pairs: full ? null : total.pairs,
    full,
    transactions,
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

/**
 * Recomputes the signals of `buyers` in the caller's transaction, BUYERS_PER_CHUNK at a time: every signal when
 * `dirty` is null (a full recompute, after its delete), else the marked pairs of each (`dirty` is `buyers`).
 */
async function recomputeBuyers(
  tx: Queryable,
  buyers: number[] | BuyerDivisions[],
  dirty: BuyerDivisions[] | null,
  keepFrom: string,
  lap: (phase: "evidence" | "compute" | "diff" | "write" | "other") => void,
  /** Told after each chunk: the buyers done so far and the signals computed for them. */
  report: (buyersDone: number, signals: number) => void,
): Promise<Counts> {
  const pairs = dirty === null ? 0 : dirty.reduce((sum, buyer) => sum + buyer.divisions.length, 0);
  const counts: Counts = { buyers: buyers.length, pairs, signals: 0, written: 0, removed: 0 };
  for (let i = 0; i < buyers.length; i += BUYERS_PER_CHUNK) {
    lap("other");
    const evidence = await loadBuyerEvidence(tx, buyers.slice(i, i + BUYERS_PER_CHUNK));
    lap("evidence");
    const signals: ComputedSignal[] = evidence.flatMap((buyer) => computeBuyerSignals(buyer, keepFrom));
    lap("compute");
    // Incremental: the same slice of pairs as the evidence's. Signals no longer derived go; of the others only
    // the new and changed are written, by digest (migration 0024).
    let changed = signals;
    if (dirty !== null) {
      const stored = await storedSignalHashes(tx, dirty.slice(i, i + BUYERS_PER_CHUNK));
      const derived = new Set(signals.map((s) => s.id));
      counts.removed += await deleteSignalsById(
        tx,
        [...stored.keys()].filter((id) => !derived.has(id)),
      );
      changed = signals.filter((s) => stored.get(s.id) !== signalContentHash(s));
    }
    lap("diff");
    for (let j = 0; j < changed.length; j += SIGNALS_PER_INSERT) {
      await writeSignals(tx, changed.slice(j, j + SIGNALS_PER_INSERT), dirty === null ? "insert" : "upsert");
    }
    lap("write");
    counts.written += changed.length;
    counts.signals += signals.length;
    report(Math.min(i + BUYERS_PER_CHUNK, buyers.length), counts.signals);
  }
  return counts;
}
