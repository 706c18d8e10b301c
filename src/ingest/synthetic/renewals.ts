import type { Buyer, PartyPools } from "./parties.ts";
import { deriveSeed, Rng, weightedSampler } from "./random.ts";
import { DAY_MS, localDay } from "./time.ts";
import { fillPattern, SUBJECTS, type Subject } from "./vocabulary.ts";

/**
 * Recurring needs: the services a buyer re-tenders on a cycle (a yearly maintenance contract, a licence
 * renewed every three years, a framework agreement re-let every four). Without them a buyer never bought the
 * same thing twice on purpose, and a renewal forecast backtested on the corpus would measure nothing.
 *
 * A need is a chain of tenders: each contract runs from its start for its duration (plus an extension when
 * one is announced and exercised), and the next tender is published some months before that end, or late,
 * after it; some needs stop (the buyer stops buying, or buys it elsewhere) and some start inside the window.
 * The whole schedule is drawn up front from its own seeded streams, because the feed is generated backwards
 * in time while a chain only makes sense forwards; it is small (one record per tender of a need, a quarter
 * of the folders). Each tender of a need is then planned like any folder (folder.ts), with the need's buyer,
 * subject, duration and dates fixed.
 *
 * The parameters below are documented in docs/ingestion.md ("Renewals"); keep both in step.
 */

export type NeedKind = "yearly" | "multiyear" | "framework";

/** How a notice publishes the contract's term (`ProcurementProject/cac:PlannedPeriod`). */
export type EndStyle = "start-end" | "start-duration" | "duration";

export interface Duration {
  value: number;
  unit: "DAY" | "MON" | "ANN";
}

/** Extension options announced in the notice (`ProcurementProject/cac:ContractExtension`). */
export interface Extension {
  months: number;
  /** `cbc:OptionsDescription`; null when only the period is published. */
  text: string | null;
  /** Whether `cac:OptionValidityPeriod/cbc:DurationMeasure` (months) is published. */
  period: boolean;
  /** The buyer uses the option, so the next tender follows the extended end. */
  exercised: boolean;
}

export interface Need {
  id: number;
  buyer: Buyer;
  subject: Subject;
  kind: NeedKind;
  /** Contract term in months (12 for yearly needs, 24–48 otherwise). */
  months: number;
  /** How the buyer's notices state that term (its pliego template does not change between tenders). */
  duration: Duration;
  /** Budget of one contract before the usual per-tender spread. */
  budget: number;
  /** The title pattern as filled for this buyer; each tender grows it with its own qualifiers. */
  title: string;
  /** Publication in the buyer's habit of this many days before the previous contract ends. */
  leadDays: number;
  /** Tenders up to `now`, oldest first. */
  occurrences: Occurrence[];
  /** The chain ends inside the window although the last contract ran out well before `now`. */
  stopped: boolean;
}

export interface Occurrence {
  need: Need;
  /** Position in the chain (0 = the first tender of the need, possibly before the window). */
  k: number;
  /** Local day of the first publication (the contract notice). */
  publishedDay: number;
  /** Planned start and end (last day) of the contract, before any extension. */
  startDay: number;
  endDay: number;
  /** End after an exercised extension, else `endDay`: what the next tender follows. */
  effectiveEndDay: number;
  endStyle: EndStyle;
  /** With `start-end`, whether the duration is published as well. */
  durationPublished: boolean;
  extension: Extension | null;
  /** Published after the previous contract's (effective) end. */
  late: boolean;
}

export interface RenewalPlan {
  needs: Need[];
  /**
   * Every tender up to `now`, newest first (ties: higher need id first), including those of running needs
   * before the window, in case the walk reaches past it.
   */
  occurrences: Occurrence[];
  /** How many of them fall inside the window: the folders the walk's other arrivals make room for. */
  inWindow: number;
  /** Local day where the window (`now` − `years`) starts. */
  windowStartDay: number;
}

/** The model's parameters. */
export const RENEWAL_MODEL = {
  /** Share of the folders in the window that are tenders of recurring needs. */
  recurringShare: 0.25,
  /** CPV divisions needs are drawn from (the IT vertical); one-off purchases keep every division. */
  divisions: ["72", "48", "30", "32", "50", "79", "64"],
  kinds: [
    ["yearly", 50],
    ["multiyear", 30],
    ["framework", 20],
  ] as const,
  /** Terms of multi-year contracts and framework agreements, in months (2–4 years). */
  multiyearMonths: [24, 36, 48],
  /** Share of needs that begin inside the window (the others were already running before it). */
  newNeedShare: 0.3,
  /** A buyer's habitual lead (days before the end), and the spread of each tender around it. */
  leadDays: [60, 180] as const,
  leadJitterDays: 20,
  minLeadDays: 20,
  /** Share of renewals published after the previous contract ended, and by how much. */
  lateShare: 0.15,
  lateDays: [10, 120] as const,
  /** Days from publication to the start of a contract when nothing earlier is running. */
  setupDays: [75, 120] as const,
  /** Share of needs that stop inside the window (their next tender never comes). */
  stopShare: 0.2,
  /** Share of tenders announcing an extension option, and share of those options exercised. */
  extensionShare: 0.35,
  extensionExercised: 0.5,
  endStyles: [
    ["start-end", 30],
    ["start-duration", 40],
    ["duration", 30],
  ] as const,
  /** With start + end, share of notices that also publish the duration. */
  startEndWithDuration: 0.5,
} as const;

const M = RENEWAL_MODEL;

const NEED_SUBJECTS = SUBJECTS.filter((s) => M.divisions.some((d) => s.cpvs[0]?.startsWith(d)));
const pickNeedSubject = weightedSampler(NEED_SUBJECTS.map((s) => s.weight));

/** The day `months` calendar months after `day` (clamped to the month's last day: 31 Jan + 1 → 28/29 Feb). */
export function addMonths(day: number, months: number): number {
  const date = new Date(day * DAY_MS);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Math.floor(Date.UTC(y, m, Math.min(date.getUTCDate(), last)) / DAY_MS);
}

function durationFor(rng: Rng, kind: NeedKind, months: number): Duration {
  if (kind === "yearly") {
    return rng.weighted<Duration>([
      [{ value: 12, unit: "MON" }, 55],
      [{ value: 1, unit: "ANN" }, 25],
      [{ value: 365, unit: "DAY" }, 20],
    ]);
  }
  if (months === 24 && rng.chance(0.1)) {
    return { value: 730, unit: "DAY" };
  }
  return rng.chance(0.6) ? { value: months, unit: "MON" } : { value: months / 12, unit: "ANN" };
}

const EXTENSION_TEXTS: Readonly<Record<number, readonly string[]>> = {
  6: ["Prórroga por 6 meses adicionales", "Posibilidad de prórroga por un periodo de seis meses"],
  12: [
    "Prórroga por 12 meses adicionales",
    "Posibilidad de prórroga por un año más",
    "Prorrogable por un periodo de 12 meses, por mutuo acuerdo de las partes",
  ],
  24: [
    "Prórroga por 24 meses adicionales",
    "Se prevén dos prórrogas anuales de 12 meses cada una",
    "Prorrogable anualmente hasta un máximo de dos años adicionales",
  ],
};

function drawExtension(rng: Rng, kind: NeedKind): Extension | null {
  if (!rng.chance(M.extensionShare)) {
    return null;
  }
  const months =
    kind === "yearly"
      ? rng.weighted([
          [12, 75],
          [6, 25],
        ])
      : rng.weighted([
          [12, kind === "framework" ? 50 : 60],
          [24, kind === "framework" ? 50 : 40],
        ]);
  // Where the option is stated: free text, the structured period, or both (the places of the real feed).
  const where = rng.weighted([
    ["both", 45],
    ["text", 35],
    ["period", 20],
  ]);
  return {
    months,
    text: where === "period" ? null : rng.pick(EXTENSION_TEXTS[months] ?? []),
    period: where !== "text",
    exercised: rng.chance(M.extensionExercised),
  };
}

function drawOccurrence(
  rng: Rng,
  need: Need,
  k: number,
  publishedDay: number,
  startDay: number,
  late: boolean,
): Occurrence {
  const endDay = addMonths(startDay, need.months) - 1;
  const extension = drawExtension(rng, need.kind);
  const endStyle = rng.weighted(M.endStyles);
  return {
    need,
    k,
    publishedDay,
    startDay,
    endDay,
    effectiveEndDay: extension?.exercised ? addMonths(endDay + 1, extension.months) - 1 : endDay,
    endStyle,
    durationPublished: endStyle !== "start-end" || rng.chance(M.startEndWithDuration),
    extension,
    late,
  };
}

/** The need's tenders from its first one up to `today`, each following the previous contract's end. */
function drawChain(rng: Rng, need: Need, firstDay: number, today: number): Occurrence[] {
  const chain: Occurrence[] = [];
  let publishedDay = firstDay;
  let startDay = firstDay + rng.int(...M.setupDays);
  let late = false;
  while (publishedDay <= today) {
    const occurrence = drawOccurrence(rng, need, chain.length, publishedDay, startDay, late);
    chain.push(occurrence);
    const end = occurrence.effectiveEndDay;
    late = rng.chance(M.lateShare);
    const lead = late
      ? -rng.int(...M.lateDays)
      : Math.max(M.minLeadDays, Math.round(need.leadDays + M.leadJitterDays * rng.normal()));
    // Never two tenders of one need within two months, whatever the draws.
    publishedDay = Math.max(end - lead, publishedDay + 60);
    // The next contract takes over the day after the running one ends, unless the tender came too late.
    startDay = Math.max(end + 1, publishedDay + rng.int(...M.setupDays));
  }
  return chain;
}

function drawNeed(
  seed: number,
  parties: PartyPools,
  id: number,
  windowStartDay: number,
  today: number,
): Need {
  const rng = new Rng(deriveSeed(seed, "need", id));
  const buyer = parties.pickBuyer(rng);
  const subject = NEED_SUBJECTS[pickNeedSubject(rng)] ?? rng.pick(NEED_SUBJECTS);
  const kind = rng.weighted(M.kinds);
  const months = kind === "yearly" ? 12 : rng.pick(M.multiyearMonths);
  // Same budget scale as one-off folders (folder.ts), so recurring tenders do not stand out by size.
  const budget = Math.min(
    Math.max(
      subject.medianBudget * buyer.sizeFactor * rng.logNormal(1, 0.9) * (kind === "framework" ? 2.5 : 1),
      4000,
    ),
    30_000_000,
  );
  const need: Need = {
    id,
    buyer,
    subject,
    kind,
    months,
    duration: durationFor(rng, kind, months),
    budget,
    title: fillPattern(rng.pick(subject.titles), rng, buyer),
    leadDays: rng.int(...M.leadDays),
    occurrences: [],
    stopped: false,
  };
  // Running needs had their first tender up to one cycle (and a lead) before the window; new ones start in it.
  const cycleDays = Math.round(months * 30.44);
  const firstDay = rng.chance(M.newNeedShare)
    ? rng.int(windowStartDay, Math.max(windowStartDay, today - 90))
    : windowStartDay - rng.int(0, cycleDays + 180);
  const chain = drawChain(rng, need, firstDay, today);
  if (rng.chance(M.stopShare)) {
    // Stop after a tender inside the window whose contract ran out and whose successor was due well before
    // `now`, so the missing renewal is visible in the corpus (a backtest's miss, not a tender not yet due).
    const candidates = chain
      .map((_, i) => i)
      .filter((i) => {
        const current = chain[i];
        const next = chain[i + 1];
        return (
          current !== undefined &&
          current.publishedDay >= windowStartDay &&
          current.effectiveEndDay <= today - 60 &&
          next !== undefined &&
          next.publishedDay <= today - 30
        );
      });
    if (candidates.length > 0) {
      chain.length = rng.pick(candidates) + 1;
      need.stopped = true;
    }
  }
  need.occurrences = chain;
  return need;
}

/**
 * Draws needs until their tenders inside the window make `recurringShare` of the `folders` the corpus will
 * hold, so the renewal share does not depend on its size.
 */
export function planRenewals(
  seed: number,
  parties: PartyPools,
  options: { nowMs: number; years: number; folders: number },
): RenewalPlan {
  const today = localDay(options.nowMs);
  const windowStartDay = localDay(options.nowMs - options.years * 365.25 * DAY_MS);
  const target = M.recurringShare * options.folders;
  const needs: Need[] = [];
  const occurrences: Occurrence[] = [];
  let inWindow = 0;
  while (inWindow < target) {
    const need = drawNeed(seed, parties, needs.length, windowStartDay, today);
    needs.push(need);
    for (const occurrence of need.occurrences) {
      occurrences.push(occurrence);
      if (occurrence.publishedDay >= windowStartDay) {
        inWindow++;
      }
    }
  }
  occurrences.sort((a, b) => b.publishedDay - a.publishedDay || b.need.id - a.need.id);
  return { needs, occurrences, inWindow, windowStartDay };
}
