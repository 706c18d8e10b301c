/**
 * The renewal signal as served (SPEC.md, Renewal signal) and the evidence it carries. analytics/renewals.ts
 * builds these; `renewal_signals.basis` stores the basis exactly as served, so reading never recomputes.
 */

import type { PartyRef } from "../party.ts";

export type SignalType = "duration_expiry" | "framework_expiry" | "recurrence";
export type Confidence = "low" | "medium" | "high";

export const CONFIDENCE_SCALE: readonly Confidence[] = ["low", "medium", "high"];
export const BASIS_VERSION = 1;

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
