/**
 * The renewal signal as served (SPEC.md, Renewal signal) and the evidence it carries. analytics/renewals.ts
 * builds these; `renewal_signals.basis` stores the basis exactly as served, so reading never recomputes.
 */

import type { PartyRef } from "../party.ts";
import type { StartDateKind } from "../vocabulary.ts";

export type SignalType = "duration_expiry" | "framework_expiry" | "recurrence";
export type Confidence = "low" | "medium" | "high";

export const CONFIDENCE_SCALE: readonly Confidence[] = ["low", "medium", "high"];
/**
 * 2: competed procedures only (lots of one procedure in one division are one signal), re-tender windows from the
 * call lead, yearly recurrence per CPV class, confidence from the buyer's related activity (issue-free summary in
 * docs/signals.md). 1 was the first heuristic (every award, 6 + 2 month windows, recurrence per division).
 */
export const BASIS_VERSION = 2;

/**
 * The tunable numbers of the heuristic. The service always uses RENEWAL_PARAMETERS; the backtest can score other
 * candidates on the same data (docs/signals.md, "Choosing the parameters").
 */
export interface RenewalParameters {
  /** Expiry window: the predicted re-tender date plus or minus this many days. */
  expiryHalfWidthDays: number;
  /** The call lead (publication to award of the basis) is capped at this many days. */
  maxCallLeadDays: number;
  /** Recurrence window: the anniversary of the last event plus or minus this many days; also the burst gap. */
  recurrenceHalfWidthDays: number;
  /** A yearly cycle is an event at least this many days before the burst, a year before it. */
  yearlyMinGapDays: number;
  /** Related tenders in the year before the basis award from which an expiry forecast is `high` (else `low`). */
  highActivity: number;
}

export const RENEWAL_PARAMETERS: RenewalParameters = {
  expiryHalfWidthDays: 45,
  maxCallLeadDays: 180,
  recurrenceHalfWidthDays: 30,
  yearlyMinGapDays: 180,
  highActivity: 1,
};

/**
 * What each confidence level stands for, with the rate it was measured at: the backtest of the real register
 * the method was chosen on (REVASCON, buyers of the train half, as of 2016-07-01, 2017-01-01, 2017-07-01;
 * docs/signals.md), hit rate against the rate of a window of the same length placed at random.
 */
export const MEASURED_ON =
  "REVASCON train half (Basque public contracts 2015-2018, 127 buyers), as of 2016-07-01, 2017-01-01, 2017-07-01";

export const EXPIRY_CONFIDENCE_RULE =
  "high: the buyer published at least one related tender (listing the CPV division, and sharing a CPV class " +
  "with the contract or with a similar title) in the year before the award; low: none (no skill over a random " +
  "window was measured for these: GET /v1/renewals lists them only with min_confidence=low). Measured: " +
  "@EXPIRY_RATES@.";
export const RECURRENCE_CONFIDENCE_RULE =
  "medium: always (at least two events of the class; basis.yearly_cycle_seen tells whether a yearly cycle was " +
  "seen, which on the measured data did not add skill). Measured: @RECURRENCE_RATES@.";

export function expiryWindowRule(params: RenewalParameters = RENEWAL_PARAMETERS): string {
  return (
    "predicted_date = the contract's end minus call_lead_days (how long the buyer took from publishing the " +
    `basis tender to awarding it, at most ${params.maxCallLeadDays} days): the re-tender is published that long ` +
    `before the end so that the new contract starts when the old one ends; window = predicted_date plus or ` +
    `minus ${params.expiryHalfWidthDays} days, never starting before the award.`
  );
}

export function recurrenceWindowRule(params: RenewalParameters = RENEWAL_PARAMETERS): string {
  return (
    "Events are the days on which the buyer published a competed tender of this CPV class that it awarded; " +
    `events at most ${params.recurrenceHalfWidthDays} days apart are one burst. predicted_date = the burst's ` +
    `last event plus 12 months; window = predicted_date plus or minus ${params.recurrenceHalfWidthDays} days.`
  );
}

/** The measured rates of each level, as the backtest that chose the method found them (MEASURED_ON). */
export interface MeasuredRate {
  confidence: Confidence;
  /** Forecasts scored. */
  scored: number;
  hit_rate: number;
  /** The rate of a window of the same length placed at random (the backtest's baseline_rate). */
  baseline_rate: number;
  /** 95 % bootstrap interval of hit_rate - baseline_rate, resampling buyers. */
  skill_ci95: [number, number];
  measured_on: string;
}

/**
 * `npm run bench -- renewals-real` reproduces these (bench/results/renewals.md); they change only when the
 * method does, and then with a new run of that benchmark.
 */
export const MEASURED_RATES: Record<"expiry" | "recurrence", readonly MeasuredRate[]> = {
  expiry: [
    {
      confidence: "high",
      scored: 549,
      hit_rate: 0.6175,
      baseline_rate: 0.577,
      skill_ci95: [0.0033, 0.1187],
      measured_on: MEASURED_ON,
    },
    {
      confidence: "low",
      scored: 270,
      hit_rate: 0.0889,
      baseline_rate: 0.094,
      skill_ci95: [-0.0276, 0.0238],
      measured_on: MEASURED_ON,
    },
  ],
  recurrence: [
    {
      confidence: "medium",
      scored: 424,
      hit_rate: 0.3019,
      baseline_rate: 0.2565,
      skill_ci95: [0.0104, 0.0879],
      measured_on: MEASURED_ON,
    },
  ],
};

/** The measured rate a signal's confidence stands for, or null when its level was never measured. */
export function measuredRateOf(type: SignalType, confidence: Confidence): MeasuredRate | null {
  return (
    MEASURED_RATES[type === "recurrence" ? "recurrence" : "expiry"].find(
      (r) => r.confidence === confidence,
    ) ?? null
  );
}

function ratesText(rates: readonly MeasuredRate[]): string {
  if (rates.length === 0) {
    return "not measured";
  }
  return rates
    .map(
      (r) =>
        `${r.confidence} hit ${r.hit_rate.toFixed(2)} against ${r.baseline_rate.toFixed(2)} for a random window ` +
        `of the same length (${r.scored} forecasts)`,
    )
    .join("; ")
    .concat(`; on ${MEASURED_ON}`);
}

/** The rule texts of a signal type, as the service computes it (stored bases omit them: see `withRules`). */
export function rulesOf(type: SignalType): { window_rule: string; confidence_rule: string } {
  return type === "recurrence"
    ? {
        window_rule: recurrenceWindowRule(),
        confidence_rule: RECURRENCE_CONFIDENCE_RULE.replace(
          "@RECURRENCE_RATES@",
          ratesText(MEASURED_RATES.recurrence),
        ),
      }
    : {
        window_rule: expiryWindowRule(),
        confidence_rule: EXPIRY_CONFIDENCE_RULE.replace("@EXPIRY_RATES@", ratesText(MEASURED_RATES.expiry)),
      };
}

/**
 * A stored basis with its rule texts and measured rate put back. They are the same for every signal of a type and
 * confidence, so the table
 * does not repeat them (about 400 bytes a row): they are added when a signal is served.
 */
export function withRules<T extends { signal_type: SignalType }>(
  basis: T,
  confidence: Confidence,
): T & {
  window_rule: string;
  confidence_rule: string;
  confidence_measured: MeasuredRate | null;
} {
  return {
    ...basis,
    ...rulesOf(basis.signal_type),
    confidence_measured: measuredRateOf(basis.signal_type, confidence),
  };
}

/** Where an expiry signal's contract end came from, most to least certain. */
export type EndDateSource = "published_end_date" | "start_plus_duration" | "award_plus_duration";

interface BasisCommon {
  basis_version: typeof BASIS_VERSION;
  window_rule: string;
  confidence_rule: string;
  /** The measured rate the signal's confidence stands for (served, not stored: see `withRules`). */
  confidence_measured: MeasuredRate | null;
  /** Reference of the tender that re-tendered this contract (the forecast came true); null while open. */
  retendered_by: string | null;
}

/** duration_expiry and framework_expiry: one competed procedure (its lots in one division) whose end is known. */
export interface ExpiryBasis extends BasisCommon {
  signal_type: "duration_expiry" | "framework_expiry";
  /** The basis award: the procedure's lot that ends last. */
  tender_ref: string;
  tender_id: number;
  tender_title: string | null;
  award_ref: string;
  award_id: number;
  award_date: string | null;
  /** How many awards (lots) of the procedure in this division the signal stands for, and their references. */
  lots: number;
  lot_award_refs: string[];
  start_date: string | null;
  /** Whether start_date is the contract's actual start or the planned one; null without a start. */
  start_date_kind: StartDateKind | null;
  end_date: string;
  end_date_source: EndDateSource;
  duration_months: number | null;
  incumbent: PartyRef | null;
  /** The latest end including announced extensions, when the notice gives it; null otherwise. */
  max_end_date: string | null;
  /** The announced extensions/options as published; null when none are announced. */
  extension_text: string | null;
  /** Days from the basis tender's publication to its award (0 without a call), capped: see window_rule. */
  call_lead_days: number;
  predicted_date: string;
  /** Related tenders the buyer published in the year before the award: what the confidence is read from. */
  related_in_prior_year: number;
}

/**
 * recurrence: a buyer's competed purchases of one CPV class (an event = a day on which it published a tender of
 * the class that it awarded), forecast a year after the last burst of events.
 */
export interface RecurrenceBasis extends BasisCommon {
  signal_type: "recurrence";
  cpv_class: string;
  award_refs: string[];
  /** One entry per event: the latest award date of the event's awards, the event (publication) date. */
  award_history: { award_date: string; event_date: string; source_ref: string }[];
  intervals_days: number[];
  median_interval_days: number;
  last_award_date: string;
  last_event_date: string;
  predicted_date: string;
  evidence_count: number;
  /** An event a year before the burst was found (cycle_event_date): the confidence is high. */
  yearly_cycle_seen: boolean;
  cycle_event_date: string | null;
  tender_title: string | null;
}

export type SignalBasis = ExpiryBasis | RecurrenceBasis;

export interface RenewalSignal {
  id: number;
  signal_type: SignalType;
  cpv: string;
  buyer: { id: number; name: string; nuts: string | null };
  window_start: string;
  window_end: string;
  confidence: Confidence;
  basis: SignalBasis;
}

/** Which forecasts a row of the backtest counts. */
export type BacktestBasis = "competed";

/** One row of the backtest: the forecasts of one type and confidence ("all" rows sum them) open at an as-of date. */
export interface BacktestRow {
  signal_type: SignalType | "all";
  confidence: Confidence | "all";
  /** Every forecast is of a competed procedure (minor contracts are not forecast). */
  basis: BacktestBasis;
  /** Open forecasts whose window ended by the coverage end. */
  scored: number;
  hits: number;
  /** hits / scored; null with nothing scored. */
  hit_rate: number | null;
  /** The mean, over scored forecasts, of the probability that a window of the same length placed uniformly between the as-of date and the coverage end holds a related tender. */
  baseline_rate: number | null;
  /** hit_rate − baseline_rate. */
  skill: number | null;
  /** 95 % interval of `skill` from a bootstrap that resamples buyers; null with fewer than 2 buyers. */
  skill_ci95: [number, number] | null;
  /** The rate of a window of the same length starting on the as-of date. */
  from_as_of_rate: number | null;
  /** The old rule's hit rate: any tender of the buyer listing the signal's CPV division inside the window. */
  division_hit_rate: number | null;
  /** Buyers with a scored forecast. */
  buyers: number;
  /** Open forecasts whose window ends after the coverage end: not scored. */
  unresolved: number;
}

export interface BacktestResult {
  /** The result's shape: 2 since skill against a same-width baseline. */
  version: 2;
  as_of: string[];
  /** Forecasts whose window ends after this day are unresolved: the earliest of the sources' coverage ends. */
  coverage_end: string | null;
  coverage_end_by_source: Record<string, string>;
  /** How the coverage end was set: given on the command line, or derived from the data (rules.coverage). */
  coverage_end_from: "argument" | "data";
  corpus: {
    awards: number;
    tenders: number;
    buyers: number;
    /** Share of tenders that are synthetic (seed --synthetic). */
    synthetic_share: number;
  };
  rules: {
    hit: string;
    related: string;
    baseline: string;
    from_as_of: string;
    scored: string;
    coverage: string;
    interval: string;
  };
  /** Summed over the as-of dates: per type × confidence, per type, and overall. */
  rows: BacktestRow[];
  per_as_of: { as_of: string; rows: BacktestRow[] }[];
  note: string;
}
