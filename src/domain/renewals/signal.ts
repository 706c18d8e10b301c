/**
 * The renewal signal as served (SPEC.md, Renewal signal) and the evidence it carries. analytics/renewals.ts
 * builds these; `renewal_signals.basis` stores the basis exactly as served, so reading never recomputes.
 */

import type { PartyRef } from "../party.ts";
import type { StartDateKind } from "../vocabulary.ts";

export type SignalType = "duration_expiry" | "framework_expiry" | "recurrence";
export type Confidence = "low" | "medium" | "high";

export const CONFIDENCE_SCALE: readonly Confidence[] = ["low", "medium", "high"];
export const BASIS_VERSION = 1;

/** Expiry windows around the contract's end, in months (chosen from the backtest: docs/signals.md). */
export type ExpiryWindows = Record<"duration_expiry" | "framework_expiry", { before: number; after: number }>;
export const EXPIRY_WINDOWS: ExpiryWindows = {
  duration_expiry: { before: 6, after: 2 },
  framework_expiry: { before: 9, after: 3 },
};
export const EXPIRY_CONFIDENCE_RULE =
  "high: the notice publishes the contract's end date; medium: end = contract start + duration; low: end = " +
  "award date + duration, or extensions/options are announced (the end may move).";
export const RECURRENCE_CONFIDENCE_RULE =
  "medium: exactly 2 award events (days on which the buyer awarded in this CPV division); high: 3 or more.";
export const RECURRENCE_WINDOW_RULE =
  "predicted_date = last_award_date + median_interval_days (rounded to a whole day); window = predicted_date " +
  "plus or minus 25 percent of the median interval (rounded to whole days).";

export function expiryWindowRule(
  type: "duration_expiry" | "framework_expiry",
  windows: ExpiryWindows,
): string {
  const { before, after } = windows[type];
  return (
    `From ${before} months before the ${type === "framework_expiry" ? "framework agreement's" : "contract's"} ` +
    `end date to ${after} months after it (re-tenders are usually published before the end; some are late), ` +
    "never starting before the award date."
  );
}

/** The rule texts of a signal type, as the service computes it (stored bases omit them: see `withRules`). */
export function rulesOf(type: SignalType): { window_rule: string; confidence_rule: string } {
  return type === "recurrence"
    ? { window_rule: RECURRENCE_WINDOW_RULE, confidence_rule: RECURRENCE_CONFIDENCE_RULE }
    : { window_rule: expiryWindowRule(type, EXPIRY_WINDOWS), confidence_rule: EXPIRY_CONFIDENCE_RULE };
}

/**
 * A stored basis with its rule texts put back. They are the same for every signal of a type, so the table
 * does not repeat them (about 400 bytes a row): they are added when a signal is served.
 */
export function withRules<T extends { signal_type: SignalType }>(
  basis: T,
): T & {
  window_rule: string;
  confidence_rule: string;
} {
  return { ...basis, ...rulesOf(basis.signal_type) };
}

/** Where an expiry signal's contract end came from, most to least certain. */
export type EndDateSource = "published_end_date" | "start_plus_duration" | "award_plus_duration";

interface BasisCommon {
  basis_version: typeof BASIS_VERSION;
  window_rule: string;
  confidence_rule: string;
  /** Reference of the tender that re-tendered this contract (the forecast came true); null while open. */
  retendered_by: string | null;
}

/** duration_expiry and framework_expiry: one awarded contract whose end is known or derivable. */
export interface ExpiryBasis extends BasisCommon {
  signal_type: "duration_expiry" | "framework_expiry";
  tender_ref: string;
  tender_id: number;
  award_ref: string;
  award_id: number;
  award_date: string | null;
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
}

/** recurrence: a buyer's award events in one CPV division (an event = a day with awards in the division). */
export interface RecurrenceBasis extends BasisCommon {
  signal_type: "recurrence";
  award_refs: string[];
  award_history: { award_date: string; source_ref: string }[];
  intervals_days: number[];
  median_interval_days: number;
  last_award_date: string;
  predicted_date: string;
  evidence_count: number;
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

/** One line of the backtest table: the signals of one type and confidence that were open at an as-of date. */
export interface BacktestRow {
  signal_type: SignalType;
  confidence: Confidence;
  /** Open forecasts at the as-of date whose window had closed by the end of the data (scorable). */
  signals: number;
  hits: number;
  /** hits / signals, 4 decimals; null with no scorable signal. */
  hit_rate: number | null;
  /** Median |actual − predicted| in days over scorable signals followed by a tender of the buyer and division. */
  median_abs_error_days: number | null;
  /** Open forecasts whose window ends after the data: not scored. */
  unresolved: number;
}

export interface BaseRate {
  /** Buyer × CPV division pairs whose naive 12-month window was open at the as-of date and closed by the end of the data. */
  forecasts: number;
  hits: number;
  hit_rate: number | null;
}

export interface BacktestResult {
  as_of: string[];
  corpus: {
    awards: number;
    tenders: number;
    buyers: number;
    /** The last publication date in the data: windows ending later cannot be scored. */
    data_until: string | null;
    /** Share of tenders that are synthetic (seed --synthetic). */
    synthetic_share: number;
  };
  rules: { hit: string; error: string; base_rate: string; scored: string };
  /** Summed over the as-of dates. */
  table: BacktestRow[];
  overall: { signals: number; hits: number; hit_rate: number | null };
  base_rate: BaseRate;
  /** overall.hit_rate / base_rate.hit_rate, 2 decimals; null when either is null or the base rate is 0. */
  lift: number | null;
  per_as_of: { as_of: string; table: BacktestRow[]; base_rate: BaseRate }[];
  note: string;
}
