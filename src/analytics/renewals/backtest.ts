import type { Db } from "../../db/client.ts";
import {
  backtestCorpus,
  insertBacktest,
  listBuyersWithTenders,
  loadBuyerEvidence,
} from "../../db/queries/renewals.ts";
import {
  type BacktestResult,
  type BacktestRow,
  type BaseRate,
  CONFIDENCE_SCALE,
  type Confidence,
  EXPIRY_WINDOWS,
  type ExpiryWindows,
  type SignalType,
} from "../../domain/renewals/signal.ts";
import { addDays, addMonths, daysBetween, median } from "../../lib/calendar.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Progress } from "../../lib/progress.ts";
import {
  type BuyerEvidence,
  computeBuyerSignals,
  cpvDivision,
  evidenceBefore,
  RetenderIndex,
} from "./rules.ts";

/**
 * The backtest (docs/signals.md): for each as-of date, the signals are computed from the evidence published
 * before it, exactly as the service would have computed them then, and scored against what was published
 * after it. Beside them, the base rate of a naive rule on the same data, so the lift is visible.
 */

const SIGNAL_TYPES: readonly SignalType[] = ["duration_expiry", "framework_expiry", "recurrence"];
/** The naive rule's horizon: a buyer that bought in a division buys again within this many months. */
const NAIVE_MONTHS = 12;

const RULES: BacktestResult["rules"] = {
  hit:
    "A forecast open at the as-of date (not yet re-tendered, window not yet over) is a hit when the same " +
    "buyer published a tender in the same CPV division inside the signal's window, on or after the as-of date.",
  error:
    "median_abs_error_days: over scored forecasts, the median of |publication date - predicted date| for the " +
    "buyer's tender in the division published after the as-of date nearest to the predicted date (expiry: " +
    "the contract end; recurrence: predicted_date); forecasts with no such tender in the data have none.",
  base_rate:
    "Naive rule: every buyer x CPV division with an award before the as-of date is expected to publish a " +
    "tender in that division within 12 months of its last award; scored the same way (pairs already " +
    "re-tendered or whose 12 months ended before the as-of date are not forecasts).",
  scored:
    "Only forecasts whose window ends on or before the last publication date of the data are scored; the " +
    "others are counted as unresolved.",
};

interface Tally {
  signals: number;
  hits: number;
  errors: number[];
  unresolved: number;
}

const emptyTally = (): Tally => ({ signals: 0, hits: 0, errors: [], unresolved: 0 });

function rate(hits: number, total: number): number | null {
  return total === 0 ? null : Math.round((hits / total) * 10_000) / 10_000;
}

class Scoreboard {
  readonly tallies = new Map<string, Tally>();
  readonly base = { forecasts: 0, hits: 0 };

  tally(type: SignalType, confidence: Confidence): Tally {
    const key = `${type}|${confidence}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = emptyTally();
      this.tallies.set(key, tally);
    }
    return tally;
  }

  rows(): BacktestRow[] {
    return SIGNAL_TYPES.flatMap((type) =>
      [...CONFIDENCE_SCALE].reverse().map((confidence) => {
        const t = this.tallies.get(`${type}|${confidence}`) ?? emptyTally();
        return {
          signal_type: type,
          confidence,
          signals: t.signals,
          hits: t.hits,
          hit_rate: rate(t.hits, t.signals),
          median_abs_error_days: t.errors.length === 0 ? null : median(t.errors),
          unresolved: t.unresolved,
        };
      }),
    );
  }

  baseRate(): BaseRate {
    return { ...this.base, hit_rate: rate(this.base.hits, this.base.forecasts) };
  }

  add(other: Scoreboard): void {
    for (const [key, t] of other.tallies) {
      const mine = this.tallies.get(key) ?? emptyTally();
      this.tallies.set(key, {
        signals: mine.signals + t.signals,
        hits: mine.hits + t.hits,
        errors: mine.errors.concat(t.errors),
        unresolved: mine.unresolved + t.unresolved,
      });
    }
    this.base.forecasts += other.base.forecasts;
    this.base.hits += other.base.hits;
  }
}

/** Scores one buyer's forecasts as of `asOf` against everything it published afterwards. */
function scoreBuyer(
  evidence: BuyerEvidence,
  asOf: string,
  dataUntil: string,
  board: Scoreboard,
  windows: ExpiryWindows,
): void {
  const past = evidenceBefore(evidence, asOf);
  const everything = new RetenderIndex(evidence.tenders);
  const dayBefore = addDays(asOf, -1);
  for (const signal of computeBuyerSignals(past, windows)) {
    if (signal.retenderedBy !== null || signal.windowEnd < asOf) {
      continue; // not an open forecast at the as-of date
    }
    const tally = board.tally(signal.signalType, signal.confidence);
    if (signal.windowEnd > dataUntil) {
      tally.unresolved++;
      continue;
    }
    tally.signals++;
    const basis = new Set(signal.evidenceTenderIds);
    const windowFrom = signal.windowStart > asOf ? signal.windowStart : asOf;
    if (everything.firstAfter(signal.cpvDivision, addDays(windowFrom, -1), signal.windowEnd, basis)) {
      tally.hits++;
    }
    const nearest = everything.nearest(signal.cpvDivision, signal.predictedDate, asOf, dataUntil, basis);
    if (nearest) {
      tally.errors.push(Math.abs(daysBetween(signal.predictedDate, nearest.publicationDate)));
    }
  }
  // The naive rule, per division of the buyer's past awards.
  const lastByDivision = new Map<string, { date: string; tenders: Set<number> }>();
  for (const award of past.awards) {
    const division = cpvDivision(award.cpv);
    if (!division || !award.awardDate) {
      continue;
    }
    const entry = lastByDivision.get(division) ?? { date: award.awardDate, tenders: new Set<number>() };
    entry.tenders.add(award.tenderId);
    if (award.awardDate > entry.date) {
      entry.date = award.awardDate;
    }
    lastByDivision.set(division, entry);
  }
  const pastTenders = new RetenderIndex(past.tenders);
  for (const [division, last] of lastByDivision) {
    const windowEnd = addMonths(last.date, NAIVE_MONTHS);
    if (windowEnd < asOf || pastTenders.firstAfter(division, last.date, null, last.tenders)) {
      continue;
    }
    if (windowEnd > dataUntil) {
      continue;
    }
    board.base.forecasts++;
    const actual = everything.firstAfter(division, dayBefore, windowEnd, last.tenders);
    if (actual) {
      board.base.hits++;
    }
  }
}

const BUYERS_PER_CHUNK = 1_000;

/** Runs the backtest at each as-of date (ascending, distinct), stores it and returns it. */
export async function backtestRenewals({
  db,
  log,
  asOf,
  now,
  windows = EXPIRY_WINDOWS,
  progress,
}: {
  db: Db;
  log: Logger;
  asOf: readonly string[];
  now: Date;
  /** Expiry windows to score instead of the service's (comparing candidates: docs/signals.md). */
  windows?: ExpiryWindows;
  progress?: Progress;
}): Promise<BacktestResult> {
  const dates = [...new Set(asOf)].sort();
  const corpus = await backtestCorpus(db);
  const boards = dates.map(() => new Scoreboard());
  const dataUntil = corpus.data_until;
  if (dataUntil !== null) {
    const buyers = await listBuyersWithTenders(db);
    for (let i = 0; i < buyers.length; i += BUYERS_PER_CHUNK) {
      for (const evidence of await loadBuyerEvidence(db, buyers.slice(i, i + BUYERS_PER_CHUNK))) {
        for (const [d, date] of dates.entries()) {
          scoreBuyer(evidence, date, dataUntil, boards[d] as Scoreboard, windows);
        }
      }
      progress?.report(
        () => `${Math.min(i + BUYERS_PER_CHUNK, buyers.length)} of ${buyers.length} buyers scored`,
      );
    }
  }
  const total = new Scoreboard();
  for (const board of boards) {
    total.add(board);
  }
  const table = total.rows();
  const signals = table.reduce((sum, row) => sum + row.signals, 0);
  const hits = table.reduce((sum, row) => sum + row.hits, 0);
  const overallRate = rate(hits, signals);
  const base = total.baseRate();
  const synthetic =
    corpus.tenders === 0 ? 0 : Math.round((corpus.synthetic_tenders / corpus.tenders) * 10_000) / 10_000;
  const result: BacktestResult = {
    as_of: dates,
    corpus: {
      awards: corpus.awards,
      tenders: corpus.tenders,
      buyers: corpus.buyers,
      data_until: corpus.data_until,
      synthetic_share: synthetic,
    },
    rules: RULES,
    table,
    overall: { signals, hits, hit_rate: overallRate },
    base_rate: base,
    lift:
      overallRate === null || base.hit_rate === null || base.hit_rate === 0
        ? null
        : Math.round((overallRate / base.hit_rate) * 100) / 100,
    per_as_of: dates.map((date, d) => ({
      as_of: date,
      table: (boards[d] as Scoreboard).rows(),
      base_rate: (boards[d] as Scoreboard).baseRate(),
    })),
    note:
      synthetic > 0
        ? "Computed on synthetic data: these hit rates prove the pipeline, not the forecasting method; real " +
          "data gives the real figure."
        : "Computed on the ingested upstream notices.",
  };
  await insertBacktest(db, { runAt: now, asOf: dates, result });
  log.info({ as_of: dates, signals, hits, base_rate: base.hit_rate }, "renewal backtest stored");
  return result;
}
