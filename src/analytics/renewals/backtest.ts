import type { Db } from "../../db/client.ts";
import {
  backtestCorpus,
  insertBacktest,
  listBuyersWithTenders,
  loadBuyerEvidence,
  sourceCoverageEnds,
} from "../../db/queries/renewals.ts";
import {
  type BacktestResult,
  type BacktestRow,
  CONFIDENCE_SCALE,
  type Confidence,
  RENEWAL_PARAMETERS,
  type RenewalParameters,
  type SignalType,
} from "../../domain/renewals/signal.ts";
import { addDays, daysBetween } from "../../lib/calendar.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Progress } from "../../lib/progress.ts";
import {
  type BuyerEvidence,
  type ComputedSignal,
  computeBuyerSignals,
  evidenceBefore,
  type TenderEvidence,
  TenderTimeline,
} from "./rules.ts";
import { TITLE_MIN_STEMS, TITLE_SIMILARITY_MIN } from "./titles.ts";

/**
 * The backtest (docs/signals.md): for each as-of date, the signals are computed from the evidence published
 * before it, exactly as the service would have computed them then, and scored against what was published after
 * it. Skill is measured against a window of the same length placed at random: a wide window hits often, and a
 * busy buyer's windows hit whatever they say, so a raw hit rate shows nothing.
 */

const SIGNAL_TYPES: readonly SignalType[] = ["duration_expiry", "framework_expiry", "recurrence"];
const BOOTSTRAP_RESAMPLES = 1000;
/** Any fixed seed: the interval must be the same bytes on every run of the same data. */
const BOOTSTRAP_SEED = 20_161_001;

export const BACKTEST_RULES: BacktestResult["rules"] = {
  hit:
    "A forecast open at the as-of date (its re-tender not yet published, its window not over) is a hit when " +
    "the same buyer published a related tender inside the window, on or after the as-of date.",
  related:
    "A tender is related to a forecast when it lists a CPV class (the first 4 digits) of the basis awards, or " +
    `its title is similar to a basis tender's: folded to ASCII lower case, words of 4 or more letters less the ` +
    `stop words of src/analytics/renewals/titles.ts cut to 6 letters, at least ${TITLE_MIN_STEMS} such stems ` +
    `each, Jaccard index at least ${TITLE_SIMILARITY_MIN}. The basis tenders themselves never count; any ` +
    "procedure counts, minor contracts included.",
  baseline:
    "baseline_rate: for each scored forecast, the exact probability that a window of the same length (the part " +
    "of its window on or after the as-of date), placed uniformly at random between the as-of date and the " +
    "coverage end, holds a related tender of the buyer; averaged over the forecasts. skill = hit_rate - " +
    "baseline_rate.",
  from_as_of: "from_as_of_rate: the same, for a window of the same length starting on the as-of date.",
  scored:
    "Only forecasts whose window ends on or before the coverage end are scored; the others are unresolved. " +
    "Lots of one procedure in one CPV division are one forecast.",
  coverage:
    "The coverage end of a source is given (--coverage-end), or derived: the last day of the last month whose " +
    "count of published tenders is at least a quarter of the source's median month (a late stray batch does " +
    "not move it). The earliest of the sources' coverage ends is used.",
  interval:
    `skill_ci95: the 2.5th and 97.5th percentiles of skill over ${BOOTSTRAP_RESAMPLES} bootstrap resamples of ` +
    "the buyers (each resample draws as many buyers as were scored, with replacement, with all their forecasts).",
};

/** One scored forecast: what `--forecasts-out` writes, and what the table is summed from. */
export interface ScoredForecast {
  as_of: string;
  buyer_id: number;
  signal_type: SignalType;
  confidence: Confidence;
  basis: "competed";
  window_start: string;
  window_end: string;
  hit: boolean;
  baseline_probability: number;
  from_as_of_hit: boolean;
  division_hit: boolean;
  /** The signal's CPV (recurrence: the class's code). */
  cpv: string;
  /** The source refs of the basis awards (the lots of an expiry, the last burst of a recurrence). */
  basis_refs: string[];
  /** The source refs of their tenders. */
  basis_tender_refs: string[];
  /** The related tenders published inside the scored window (empty on a miss). */
  hit_refs: string[];
}

/**
 * The exact probability that a window of `length` days whose start is drawn uniformly from the days
 * [from, until - length + 1] holds one of `dates` (sorted ascending, each in [from, until]).
 */
export function windowProbability(
  dates: readonly string[],
  from: string,
  until: string,
  length: number,
): number {
  const lastStart = addDays(until, -(length - 1));
  const positions = daysBetween(from, lastStart) + 1;
  if (positions <= 0) {
    return dates.length > 0 ? 1 : 0;
  }
  // The starts whose window holds a date d are [d - length + 1, d] within [from, lastStart]; dates ascend, so
  // these intervals ascend too and are merged as they come.
  let covered = 0;
  let run: { start: string; end: string } | null = null;
  for (const date of dates) {
    const earliest = addDays(date, -(length - 1));
    const lo = earliest > from ? earliest : from;
    const hi = date < lastStart ? date : lastStart;
    if (lo > hi) {
      continue;
    }
    if (run !== null && lo <= addDays(run.end, 1)) {
      run.end = hi > run.end ? hi : run.end;
    } else {
      if (run !== null) {
        covered += daysBetween(run.start, run.end) + 1;
      }
      run = { start: lo, end: hi };
    }
  }
  if (run !== null) {
    covered += daysBetween(run.start, run.end) + 1;
  }
  return covered / positions;
}

/** Scores one buyer's open forecasts as of `asOf` against everything it published up to the coverage end. */
function scoreBuyer(
  evidence: BuyerEvidence,
  asOf: string,
  coverageEnd: string,
  params: RenewalParameters,
): { scored: ScoredForecast[]; unresolved: ComputedSignal[] } {
  const everything = new TenderTimeline(evidence.tenders);
  const scored: ScoredForecast[] = [];
  const unresolved: ComputedSignal[] = [];
  for (const signal of computeBuyerSignals(evidenceBefore(evidence, asOf), null, params)) {
    if (signal.retenderedBy !== null || signal.windowEnd < asOf) {
      continue; // not an open forecast at the as-of date
    }
    if (signal.windowEnd > coverageEnd) {
      unresolved.push(signal);
      continue;
    }
    const from = signal.windowStart > asOf ? signal.windowStart : asOf;
    const length = daysBetween(from, signal.windowEnd) + 1;
    const related = [...everything.related(signal.related, asOf, coverageEnd)];
    const dates = [...new Set(related.map((t) => t.publicationDate))];
    const inWindow = related.filter(
      (t) => t.publicationDate >= from && t.publicationDate <= signal.windowEnd,
    );
    const fromAsOfEnd = addDays(asOf, length - 1);
    scored.push({
      as_of: asOf,
      buyer_id: evidence.buyerId,
      signal_type: signal.signalType,
      confidence: signal.confidence,
      basis: "competed",
      window_start: signal.windowStart,
      window_end: signal.windowEnd,
      hit: inWindow.length > 0,
      baseline_probability: windowProbability(dates, asOf, coverageEnd, length),
      from_as_of_hit: dates.some((d) => d <= fromAsOfEnd),
      division_hit: everything.tenders.some(
        (t: TenderEvidence) =>
          t.publicationDate >= from &&
          t.publicationDate <= signal.windowEnd &&
          !signal.related.exclude.has(t.tenderId) &&
          t.divisions.includes(signal.cpvDivision),
      ),
      cpv: signal.cpv,
      basis_refs: [...signal.related.awardRefs],
      basis_tender_refs: [...signal.related.tenderRefs],
      hit_refs: inWindow.map((t) => t.ref),
    });
  }
  return { scored, unresolved };
}

/** A small deterministic PRNG (mulberry32): the bootstrap must give the same interval on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The 95 % bootstrap interval of skill, resampling buyers; null with fewer than 2 buyers. */
export function skillInterval(forecasts: readonly ScoredForecast[]): [number, number] | null {
  const byBuyer = new Map<number, { n: number; hits: number; baseline: number }>();
  for (const f of forecasts) {
    const b = byBuyer.get(f.buyer_id) ?? { n: 0, hits: 0, baseline: 0 };
    b.n += 1;
    b.hits += f.hit ? 1 : 0;
    b.baseline += f.baseline_probability;
    byBuyer.set(f.buyer_id, b);
  }
  const buyers = [...byBuyer.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
  if (buyers.length < 2) {
    return null;
  }
  const random = prng(BOOTSTRAP_SEED);
  const skills: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    let n = 0;
    let hits = 0;
    let baseline = 0;
    for (let i = 0; i < buyers.length; i++) {
      const b = buyers[Math.floor(random() * buyers.length)] as { n: number; hits: number; baseline: number };
      n += b.n;
      hits += b.hits;
      baseline += b.baseline;
    }
    skills.push((hits - baseline) / n);
  }
  skills.sort((a, b) => a - b);
  const lo = skills[Math.floor(0.025 * BOOTSTRAP_RESAMPLES)] as number;
  const hi = skills[Math.ceil(0.975 * BOOTSTRAP_RESAMPLES) - 1] as number;
  return [round4(lo), round4(hi)];
}

function summarize(
  type: SignalType | "all",
  confidence: Confidence | "all",
  forecasts: readonly ScoredForecast[],
  unresolved: number,
): BacktestRow {
  const n = forecasts.length;
  const rate = (count: number) => (n === 0 ? null : round4(count / n));
  const hits = forecasts.filter((f) => f.hit).length;
  const baseline = forecasts.reduce((sum, f) => sum + f.baseline_probability, 0);
  return {
    signal_type: type,
    confidence,
    basis: "competed",
    scored: n,
    hits,
    hit_rate: rate(hits),
    baseline_rate: rate(baseline),
    skill: n === 0 ? null : round4((hits - baseline) / n),
    skill_ci95: n === 0 ? null : skillInterval(forecasts),
    from_as_of_rate: rate(forecasts.filter((f) => f.from_as_of_hit).length),
    division_hit_rate: rate(forecasts.filter((f) => f.division_hit).length),
    buyers: new Set(forecasts.map((f) => f.buyer_id)).size,
    unresolved,
  };
}

/** Rows per type × confidence (high first), then per type, then overall. */
export function backtestRows(
  forecasts: readonly ScoredForecast[],
  unresolved: readonly { signalType: SignalType; confidence: Confidence }[],
): BacktestRow[] {
  const rows: BacktestRow[] = [];
  const open = (type: SignalType | "all", confidence: Confidence | "all") =>
    unresolved.filter(
      (u) =>
        (type === "all" || u.signalType === type) && (confidence === "all" || u.confidence === confidence),
    ).length;
  for (const type of SIGNAL_TYPES) {
    for (const confidence of [...CONFIDENCE_SCALE].reverse()) {
      rows.push(
        summarize(
          type,
          confidence,
          forecasts.filter((f) => f.signal_type === type && f.confidence === confidence),
          open(type, confidence),
        ),
      );
    }
  }
  for (const type of SIGNAL_TYPES) {
    rows.push(
      summarize(
        type,
        "all",
        forecasts.filter((f) => f.signal_type === type),
        open(type, "all"),
      ),
    );
  }
  rows.push(summarize("all", "all", forecasts, open("all", "all")));
  return rows;
}

const BUYERS_PER_CHUNK = 1_000;

/**
 * Runs the backtest at each as-of date (ascending, distinct), stores it and returns it. `coverageEnd` overrides
 * the coverage end derived from the data; `onForecast` receives every scored forecast (`--forecasts-out`).
 */
export async function backtestRenewals({
  db,
  log,
  asOf,
  now,
  coverageEnd = null,
  params = RENEWAL_PARAMETERS,
  onForecast,
  progress,
}: {
  db: Db;
  log: Logger;
  asOf: readonly string[];
  now: Date;
  coverageEnd?: string | null;
  /** Parameters to score instead of the service's (comparing candidates: docs/signals.md). */
  params?: RenewalParameters;
  onForecast?: (forecast: ScoredForecast) => void;
  progress?: Progress;
}): Promise<BacktestResult> {
  const dates = [...new Set(asOf)].sort();
  const [corpus, bySource] = await Promise.all([backtestCorpus(db), sourceCoverageEnds(db)]);
  const derived = Object.values(bySource).sort()[0] ?? null;
  const end = coverageEnd ?? derived;
  const perDate = dates.map(() => ({
    scored: [] as ScoredForecast[],
    unresolved: [] as { signalType: SignalType; confidence: Confidence }[],
  }));
  if (end !== null) {
    const buyers = await listBuyersWithTenders(db);
    for (let i = 0; i < buyers.length; i += BUYERS_PER_CHUNK) {
      for (const evidence of await loadBuyerEvidence(db, buyers.slice(i, i + BUYERS_PER_CHUNK))) {
        for (const [d, date] of dates.entries()) {
          const { scored, unresolved } = scoreBuyer(evidence, date, end, params);
          const target = perDate[d] as (typeof perDate)[number];
          target.scored.push(...scored);
          target.unresolved.push(...unresolved);
          for (const forecast of scored) {
            onForecast?.(forecast);
          }
        }
      }
      progress?.report(
        () => `${Math.min(i + BUYERS_PER_CHUNK, buyers.length)} of ${buyers.length} buyers scored`,
      );
    }
  }
  const all = perDate.flatMap((p) => p.scored);
  const rows = backtestRows(
    all,
    perDate.flatMap((p) => p.unresolved),
  );
  const synthetic =
    corpus.tenders === 0 ? 0 : Math.round((corpus.synthetic_tenders / corpus.tenders) * 10_000) / 10_000;
  const result: BacktestResult = {
    version: 2,
    as_of: dates,
    coverage_end: end,
    coverage_end_by_source: bySource,
    coverage_end_from: coverageEnd !== null ? "argument" : "data",
    corpus: {
      awards: corpus.awards,
      tenders: corpus.tenders,
      buyers: corpus.buyers,
      synthetic_share: synthetic,
    },
    rules: BACKTEST_RULES,
    rows,
    per_as_of: dates.map((date, d) => ({
      as_of: date,
      rows: backtestRows(
        (perDate[d] as (typeof perDate)[number]).scored,
        (perDate[d] as (typeof perDate)[number]).unresolved,
      ),
    })),
    note:
      synthetic > 0
        ? "Computed on synthetic data: these rates prove the pipeline, not the forecasting method; real data " +
          "gives the real figure."
        : "Computed on the ingested upstream notices.",
  };
  await insertBacktest(db, { runAt: now, asOf: dates, result });
  const overall = rows[rows.length - 1] as BacktestRow;
  log.info(
    { as_of: dates, coverage_end: end, scored: overall.scored, skill: overall.skill, ci: overall.skill_ci95 },
    "renewal backtest stored",
  );
  return result;
}
