/**
 * The renewal signal as served (SPEC.md, Renewal signal) and the evidence it carries. analytics/renewals.ts
 * builds these; `renewal_signals.basis` stores the basis exactly as served, so reading never recomputes.
 */

export type SignalType = "duration_expiry" | "framework_expiry" | "recurrence";
export type Confidence = "low" | "medium" | "high";

export const CONFIDENCE_SCALE: readonly Confidence[] = ["low", "medium", "high"];
export const BASIS_VERSION = 1;

export interface PartyRef {
  id: number;
  name: string;
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
