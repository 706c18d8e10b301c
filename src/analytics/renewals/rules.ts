import { createHash } from "node:crypto";
import type { PartyRef } from "../../domain/party.ts";
import {
  BASIS_VERSION,
  type Confidence,
  type EndDateSource,
  EXPIRY_CONFIDENCE_RULE,
  EXPIRY_WINDOWS,
  type ExpiryBasis,
  type ExpiryWindows,
  expiryWindowRule,
  RECURRENCE_CONFIDENCE_RULE,
  RECURRENCE_WINDOW_RULE,
  type RecurrenceBasis,
  type SignalBasis,
  type SignalType,
} from "../../domain/renewals/signal.ts";
import type { StartDateKind } from "../../domain/vocabulary.ts";
import { addDays, addMonths, daysBetween, median } from "../../lib/calendar.ts";

/**
 * The renewal heuristic (docs/signals.md), as pure functions of one buyer's evidence: the same evidence gives
 * the same signals, byte for byte, whoever calls (full recompute, the per-buyer step after an ingest run, the
 * backtest with an as-of cut).
 */

/** One award of the buyer, as the heuristic needs it (superseded awards and hidden tenders never get here). */
export interface AwardEvidence {
  awardId: number;
  tenderId: number;
  tenderRef: string;
  /** The award's own notice reference, else its tender's. */
  awardRef: string;
  awardDate: string | null;
  /** The contract's start, actual or planned (`startDateKind`, migration 0023). */
  startDate: string | null;
  startDateKind: StartDateKind | null;
  /** A published end date (the lot's, else the notice's). */
  endDate: string | null;
  /** The lot's duration, else the notice's, in months. */
  durationMonths: number | null;
  framework: boolean;
  /** The lot's CPV, else the notice's main CPV; 8 digits. */
  cpv: string | null;
  incumbent: PartyRef | null;
  extensionText: string | null;
  extensionMonths: number | null;
  extensionEndDate: string | null;
}

/** One published tender of the buyer: a possible re-tender. */
export interface TenderEvidence {
  tenderId: number;
  ref: string;
  publicationDate: string;
  /** The CPV divisions (first two digits) of every CPV of the tender. */
  divisions: readonly string[];
}

export interface BuyerEvidence {
  buyerId: number;
  awards: readonly AwardEvidence[];
  tenders: readonly TenderEvidence[];
}

export interface ComputedSignal {
  id: number;
  basisKey: string;
  signalType: SignalType;
  cpv: string;
  cpvDivision: string;
  buyerId: number;
  tenderId: number;
  awardId: number;
  predictedDate: string;
  windowStart: string;
  windowEnd: string;
  confidence: Confidence;
  retenderedBy: number | null;
  /** The tenders of the awards the basis uses, ascending (the signal's provenance). */
  evidenceTenderIds: number[];
  basis: SignalBasis;
}

/** Recurrence window: predicted date ± this share of the median interval (RECURRENCE_WINDOW_RULE says it). */
export const RECURRENCE_WINDOW_SHARE = 0.25;

/** A stable id from the basis key: the first 52 bits of its SHA-256, a positive safe integer. */
export function signalId(basisKey: string): number {
  return Number.parseInt(createHash("sha256").update(basisKey).digest("hex").slice(0, 13), 16);
}

export function cpvDivision(cpv: string | null): string | null {
  return cpv && /^\d{8}/.test(cpv) ? cpv.slice(0, 2) : null;
}

/**
 * A tender's CPV divisions, ascending and distinct: the first two characters of every code that starts with two
 * digits. The same as the SQL function `cpv_divisions` (migration 0021) with which the triggers mark a tender's
 * pairs dirty (test/analytics/renewals-evidence.test.ts compares them); computed here because the SQL function
 * costs a few microseconds per row (a subquery per call), which the evidence reads paid for every tender.
 */
export function tenderDivisions(cpvAll: readonly (string | null)[]): string[] {
  const divisions = new Set<string>();
  for (const code of cpvAll) {
    if (code !== null && /^[0-9]{2}/.test(code)) {
      divisions.add(code.slice(0, 2));
    }
  }
  return [...divisions].sort();
}

/** Index of the first tender of the (date-ordered) list published strictly after `date`. */
function firstPublishedAfter(list: readonly TenderEvidence[], date: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as TenderEvidence).publicationDate <= date) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** The buyer's tenders per division, oldest first: where re-tenders are looked up. */
export class RetenderIndex {
  private readonly byDivision = new Map<string, TenderEvidence[]>();

  constructor(tenders: readonly TenderEvidence[]) {
    for (const tender of tenders) {
      for (const division of new Set(tender.divisions)) {
        let list = this.byDivision.get(division);
        if (!list) {
          list = [];
          this.byDivision.set(division, list);
        }
        list.push(tender);
      }
    }
    for (const list of this.byDivision.values()) {
      list.sort((a, b) =>
        a.publicationDate === b.publicationDate
          ? a.tenderId - b.tenderId
          : a.publicationDate < b.publicationDate
            ? -1
            : 1,
      );
    }
  }

  /**
   * The first tender in `division` published strictly after `after` and on or before `until` (no bound when
   * null), other than the excluded ones (the basis tenders themselves).
   */
  firstAfter(
    division: string,
    after: string,
    until: string | null,
    exclude: ReadonlySet<number>,
  ): TenderEvidence | null {
    const list = this.byDivision.get(division);
    if (!list) {
      return null;
    }
    for (let i = firstPublishedAfter(list, after); i < list.length; i++) {
      const tender = list[i] as TenderEvidence;
      if (until !== null && tender.publicationDate > until) {
        return null;
      }
      if (!exclude.has(tender.tenderId)) {
        return tender;
      }
    }
    return null;
  }

  /**
   * The tender in `division` published in [from, until] whose date is nearest to `target` (the earlier one on
   * a tie), other than the excluded ones; null when there is none.
   */
  nearest(
    division: string,
    target: string,
    from: string,
    until: string,
    exclude: ReadonlySet<number>,
  ): TenderEvidence | null {
    const list = this.byDivision.get(division) ?? [];
    const inRange = (t: TenderEvidence) =>
      t.publicationDate >= from && t.publicationDate <= until && !exclude.has(t.tenderId);
    const pivot = firstPublishedAfter(list, addDays(target, -1));
    let before: TenderEvidence | null = null;
    for (let i = pivot - 1; i >= 0 && (list[i] as TenderEvidence).publicationDate >= from; i--) {
      if (inRange(list[i] as TenderEvidence)) {
        before = list[i] as TenderEvidence;
        break;
      }
    }
    let onOrAfter: TenderEvidence | null = null;
    for (let i = pivot; i < list.length && (list[i] as TenderEvidence).publicationDate <= until; i++) {
      if (inRange(list[i] as TenderEvidence)) {
        onOrAfter = list[i] as TenderEvidence;
        break;
      }
    }
    if (!before || !onOrAfter) {
      return before ?? onOrAfter;
    }
    return daysBetween(before.publicationDate, target) <= daysBetween(target, onOrAfter.publicationDate)
      ? before
      : onOrAfter;
  }
}

/** The contract's end and where it came from, or null when it cannot be known. */
export function contractEnd(award: AwardEvidence): { endDate: string; source: EndDateSource } | null {
  if (award.endDate) {
    return { endDate: award.endDate, source: "published_end_date" };
  }
  if (award.durationMonths === null || award.durationMonths <= 0) {
    return null;
  }
  if (award.startDate) {
    return { endDate: addMonths(award.startDate, award.durationMonths), source: "start_plus_duration" };
  }
  if (award.awardDate) {
    return { endDate: addMonths(award.awardDate, award.durationMonths), source: "award_plus_duration" };
  }
  return null;
}

function hasExtensions(award: AwardEvidence): boolean {
  return award.extensionText !== null || award.extensionMonths !== null || award.extensionEndDate !== null;
}

function expirySignal(
  buyerId: number,
  award: AwardEvidence,
  retenders: RetenderIndex,
  windows: ExpiryWindows,
  keepFrom: string | null,
): ComputedSignal | null {
  const division = cpvDivision(award.cpv);
  const end = contractEnd(award);
  if (!division || !award.cpv || !end) {
    return null;
  }
  const type = award.framework ? "framework_expiry" : "duration_expiry";
  const window = windows[type];
  // The award is the latest fact of the basis: a re-tender comes after it, so a short contract's window
  // starts at its award rather than months before it.
  const after = award.awardDate ?? award.startDate;
  const leadStart = addMonths(end.endDate, -window.before);
  const windowStart = after !== null && after > leadStart ? after : leadStart;
  const windowEnd = addMonths(end.endDate, window.after);
  if (windowStart > windowEnd) {
    return null; // awarded after its contract had ended: nothing left to forecast
  }
  if (keepFrom !== null && windowEnd < keepFrom) {
    return null; // past retention: decided before any lookup or allocation (most contracts are history)
  }
  const confidence: Confidence =
    hasExtensions(award) || end.source === "award_plus_duration"
      ? "low"
      : end.source === "published_end_date"
        ? "high"
        : "medium";
  const maxEnd =
    award.extensionEndDate ??
    (award.extensionMonths !== null && award.extensionMonths > 0
      ? addMonths(end.endDate, award.extensionMonths)
      : null);
  // A tender published after the award is a re-tender candidate.
  const retender = after ? retenders.firstAfter(division, after, windowEnd, new Set([award.tenderId])) : null;
  const basis: ExpiryBasis = {
    signal_type: type,
    basis_version: BASIS_VERSION,
    tender_ref: award.tenderRef,
    tender_id: award.tenderId,
    award_ref: award.awardRef,
    award_id: award.awardId,
    award_date: award.awardDate,
    start_date: award.startDate,
    start_date_kind: award.startDateKind,
    end_date: end.endDate,
    end_date_source: end.source,
    duration_months: award.durationMonths,
    incumbent: award.incumbent,
    max_end_date: maxEnd,
    extension_text: award.extensionText,
    window_rule: expiryWindowRule(type, windows),
    confidence_rule: EXPIRY_CONFIDENCE_RULE,
    retendered_by: retender?.ref ?? null,
  };
  const basisKey = `${type}:award:${award.awardId}`;
  return {
    id: signalId(basisKey),
    basisKey,
    signalType: type,
    cpv: award.cpv.slice(0, 8),
    cpvDivision: division,
    buyerId,
    tenderId: award.tenderId,
    awardId: award.awardId,
    predictedDate: end.endDate,
    windowStart,
    windowEnd,
    confidence,
    retenderedBy: retender?.tenderId ?? null,
    evidenceTenderIds: [award.tenderId],
    basis,
  };
}

interface AwardEvent {
  date: string;
  /** The day's awards, by id. */
  awards: AwardEvidence[];
}

/**
 * Award events per division: a day on which the buyer awarded in the division is one event, however many
 * lots or procedures it covered, so a three-lot tender awarded on one day cannot fake a zero-day interval.
 */
function eventsByDivision(awards: readonly AwardEvidence[]): Map<string, AwardEvent[]> {
  const byDivision = new Map<string, Map<string, AwardEvidence[]>>();
  for (const award of awards) {
    const division = cpvDivision(award.cpv);
    if (!division || !award.awardDate) {
      continue;
    }
    let days = byDivision.get(division);
    if (!days) {
      days = new Map();
      byDivision.set(division, days);
    }
    const day = days.get(award.awardDate);
    if (day) {
      day.push(award);
    } else {
      days.set(award.awardDate, [award]);
    }
  }
  const events = new Map<string, AwardEvent[]>();
  for (const [division, days] of byDivision) {
    events.set(
      division,
      [...days.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([date, dayAwards]) => ({ date, awards: dayAwards.sort((a, b) => a.awardId - b.awardId) })),
    );
  }
  return events;
}

function recurrenceSignal(
  buyerId: number,
  division: string,
  events: AwardEvent[],
  retenders: RetenderIndex,
): ComputedSignal | null {
  if (events.length < 2) {
    return null;
  }
  const intervals = events
    .slice(1)
    .map((event, i) => daysBetween((events[i] as AwardEvent).date, event.date));
  const medianDays = median(intervals);
  const last = events[events.length - 1] as AwardEvent;
  const predicted = addDays(last.date, medianDays);
  const margin = Math.round(medianDays * RECURRENCE_WINDOW_SHARE);
  const windowStart = addDays(predicted, -margin);
  const windowEnd = addDays(predicted, margin);
  const awardRefs = [...new Set(events.flatMap((event) => event.awards.map((a) => a.awardRef)))];
  const basisTenders = new Set(events.flatMap((event) => event.awards.map((a) => a.tenderId)));
  const retender = retenders.firstAfter(division, last.date, windowEnd, basisTenders);
  const newest = last.awards[0] as AwardEvidence;
  const basis: RecurrenceBasis = {
    signal_type: "recurrence",
    basis_version: BASIS_VERSION,
    award_refs: awardRefs,
    award_history: events.map((event) => ({
      award_date: event.date,
      source_ref: (event.awards[0] as AwardEvidence).awardRef,
    })),
    intervals_days: intervals,
    median_interval_days: medianDays,
    last_award_date: last.date,
    predicted_date: predicted,
    evidence_count: events.length,
    window_rule: RECURRENCE_WINDOW_RULE,
    confidence_rule: RECURRENCE_CONFIDENCE_RULE,
    retendered_by: retender?.ref ?? null,
  };
  const basisKey = `recurrence:buyer:${buyerId}:division:${division}`;
  return {
    id: signalId(basisKey),
    basisKey,
    signalType: "recurrence",
    cpv: `${division}000000`,
    cpvDivision: division,
    buyerId,
    tenderId: newest.tenderId,
    awardId: newest.awardId,
    predictedDate: predicted,
    windowStart,
    windowEnd,
    confidence: events.length >= 3 ? "high" : "medium",
    retenderedBy: retender?.tenderId ?? null,
    evidenceTenderIds: [...basisTenders].sort((a, b) => a - b),
    basis,
  };
}

/**
 * Every signal of one buyer, ordered by basis key (the order they are written in). `windows` is for the
 * backtest's comparison of expiry windows; the service always uses EXPIRY_WINDOWS. With `keepFrom`, signals
 * whose window ended before that day are left out (retention).
 */
export function computeBuyerSignals(
  evidence: BuyerEvidence,
  windows: ExpiryWindows = EXPIRY_WINDOWS,
  keepFrom: string | null = null,
): ComputedSignal[] {
  const retenders = new RetenderIndex(evidence.tenders);
  const signals: ComputedSignal[] = [];
  for (const award of evidence.awards) {
    const signal = expirySignal(evidence.buyerId, award, retenders, windows, keepFrom);
    if (signal) {
      signals.push(signal);
    }
  }
  for (const [division, events] of eventsByDivision(evidence.awards)) {
    const signal = recurrenceSignal(evidence.buyerId, division, events, retenders);
    if (signal && (keepFrom === null || signal.windowEnd >= keepFrom)) {
      signals.push(signal);
    }
  }
  return signals.sort((a, b) => (a.basisKey < b.basisKey ? -1 : a.basisKey > b.basisKey ? 1 : 0));
}

/** The evidence as it stood before `asOf`: awards dated before it, tenders published before it. */
export function evidenceBefore(evidence: BuyerEvidence, asOf: string): BuyerEvidence {
  return {
    buyerId: evidence.buyerId,
    awards: evidence.awards.filter((a) => a.awardDate !== null && a.awardDate < asOf),
    tenders: evidence.tenders.filter((t) => t.publicationDate < asOf),
  };
}
