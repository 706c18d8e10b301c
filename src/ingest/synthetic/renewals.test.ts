import { beforeAll, describe, expect, it } from "vitest";
import type { NormalizedTender } from "../model.ts";
import { cac, cacExt, cbc } from "../placsp/namespaces.ts";
import { normalizePlacspEntry } from "../placsp/normalize.ts";
import { readPlacspFeed } from "../placsp/parse.ts";
import { attr, path, pathAll, text } from "../xml/element.ts";
import { type SyntheticFeedOptions, syntheticFeedPages, syntheticRenewalPlan } from "./feed.ts";
import { buildParties } from "./parties.ts";
import { addMonths, type Need, type Occurrence, planRenewals, RENEWAL_MODEL } from "./renewals.ts";
import { DAY_MS, formatDay, localDay } from "./time.ts";

const NOW = new Date("2026-03-15T12:00:00.000Z");
const SEED = 20260315;
const DIVISIONS: readonly string[] = RENEWAL_MODEL.divisions;

const division = (need: Need): string => need.subject.cpvs[0]?.slice(0, 2) ?? "";
const renewalsOf = (needs: readonly Need[]): [Occurrence, Occurrence][] =>
  needs.flatMap((need) =>
    need.occurrences
      .slice(1)
      .map((next, i): [Occurrence, Occurrence] => [need.occurrences[i] as Occurrence, next]),
  );

describe("recurring needs (the schedule)", () => {
  // About 1,400 folders' worth over seven years: a few hundred needs, drawn in milliseconds.
  const plan = planRenewals(SEED, buildParties(SEED), { nowMs: NOW.getTime(), years: 7, folders: 1400 });
  const today = localDay(NOW.getTime());
  const pairs = renewalsOf(plan.needs);

  it("puts a quarter of the window's folders on the cycles of needs, in the IT divisions", () => {
    expect(plan.inWindow).toBeGreaterThanOrEqual(0.25 * 1400);
    expect(plan.inWindow).toBeLessThan(0.25 * 1400 + 20);
    expect(plan.needs.length).toBeGreaterThan(60);
    for (const need of plan.needs) {
      expect(DIVISIONS).toContain(division(need));
      expect(need.occurrences.length).toBeGreaterThan(0);
    }
    // Several needs in one buyer × division (a big buyer's IT): one-offs are not the only noise.
    const perKey = new Map<string, number>();
    for (const need of plan.needs) {
      const key = `${need.buyer.nif}|${division(need)}`;
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
    expect([...perKey.values()].some((n) => n >= 3)).toBe(true);
    // Newest first, all published by `now`.
    const days = plan.occurrences.map((o) => o.publishedDay);
    expect(days).toEqual([...days].sort((a, b) => b - a));
    expect(days[0]).toBeLessThanOrEqual(today);
  });

  it("runs yearly contracts, 2–4 year contracts and 2–4 year framework agreements", () => {
    const kinds = new Map<string, Need[]>();
    for (const need of plan.needs) {
      kinds.set(need.kind, [...(kinds.get(need.kind) ?? []), need]);
    }
    expect(kinds.get("yearly")?.every((n) => n.months === 12)).toBe(true);
    for (const kind of ["multiyear", "framework"]) {
      expect(kinds.get(kind)?.length).toBeGreaterThan(5);
      expect(kinds.get(kind)?.every((n) => [24, 36, 48].includes(n.months))).toBe(true);
    }
    for (const need of plan.needs) {
      const months = { DAY: 12 / 365, MON: 1, ANN: 12 }[need.duration.unit] * need.duration.value;
      expect(Math.abs(months - need.months)).toBeLessThan(0.01);
      for (const o of need.occurrences) {
        expect(o.endDay).toBe(addMonths(o.startDay, need.months) - 1);
      }
    }
  });

  it("publishes each renewal a few months before the running contract ends, or late, never overlapping", () => {
    expect(pairs.length).toBeGreaterThan(200);
    let late = 0;
    for (const [previous, next] of pairs) {
      const lead = previous.effectiveEndDay - next.publishedDay;
      expect(next.late).toBe(lead < 0);
      if (next.late) {
        late++;
        expect(-lead).toBeGreaterThanOrEqual(RENEWAL_MODEL.lateDays[0]);
        expect(-lead).toBeLessThanOrEqual(RENEWAL_MODEL.lateDays[1]);
      } else {
        // Habitual lead 60–180 days, each tender ±20 days (normal): ±6σ bounds.
        expect(lead).toBeGreaterThanOrEqual(RENEWAL_MODEL.minLeadDays);
        expect(lead).toBeLessThanOrEqual(RENEWAL_MODEL.leadDays[1] + 6 * RENEWAL_MODEL.leadJitterDays);
      }
      // The next contract takes over after the running one (extension included) ends.
      expect(next.startDay).toBeGreaterThan(previous.effectiveEndDay);
      expect(next.startDay - next.publishedDay).toBeGreaterThanOrEqual(RENEWAL_MODEL.setupDays[0]);
    }
    expect(late / pairs.length).toBeGreaterThan(0.08);
    expect(late / pairs.length).toBeLessThan(0.22);
    // Most leads are the typical two to six months.
    const typical = pairs.filter(([p, n]) => {
      const lead = p.effectiveEndDay - n.publishedDay;
      return lead >= 40 && lead <= 200;
    });
    expect(typical.length / pairs.length).toBeGreaterThan(0.65);
  });

  it("spaces a need's tenders by its cycle, within the lead jitter", () => {
    // gap = cycle + (publication → start of the previous contract) − 1 − (lead of the next tender). The first
    // term is the setup time, or the previous lead + 1 when the previous contract took over on time.
    const maxLead = RENEWAL_MODEL.leadDays[1] + 6 * RENEWAL_MODEL.leadJitterDays;
    for (const [previous, next] of pairs) {
      const { months } = previous.need;
      const extension = previous.extension?.exercised ? previous.extension.months : 0;
      const cycle = addMonths(previous.startDay, months + extension) - previous.startDay;
      const gap = next.publishedDay - previous.publishedDay;
      expect(gap).toBeGreaterThanOrEqual(60);
      expect(gap - cycle).toBeLessThanOrEqual(
        Math.max(RENEWAL_MODEL.setupDays[1], maxLead + 1) + RENEWAL_MODEL.lateDays[1],
      );
      expect(cycle - gap).toBeLessThanOrEqual(maxLead - RENEWAL_MODEL.setupDays[0] + 1);
    }
    // Yearly needs, seen from outside: the median gap between tenders is about a year.
    const yearly = pairs
      .filter(([p]) => p.need.kind === "yearly" && !p.extension?.exercised)
      .map(([p, n]) => n.publishedDay - p.publishedDay)
      .sort((a, b) => a - b);
    const median = yearly[Math.floor(yearly.length / 2)] ?? 0;
    expect(median).toBeGreaterThan(300);
    expect(median).toBeLessThan(430);
  });

  it("stops some needs inside the window with their renewal overdue, and starts others in it", () => {
    const stopped = plan.needs.filter((n) => n.stopped);
    expect(stopped.length / plan.needs.length).toBeGreaterThan(0.1);
    expect(stopped.length / plan.needs.length).toBeLessThan(0.3);
    for (const need of stopped) {
      const last = need.occurrences[need.occurrences.length - 1] as Occurrence;
      expect(last.publishedDay).toBeGreaterThanOrEqual(plan.windowStartDay);
      // Its contract ran out at least two months before now, and no renewal followed.
      expect(last.effectiveEndDay).toBeLessThanOrEqual(today - 60);
    }
    const running = plan.needs.filter((n) => !n.stopped);
    for (const need of running) {
      const last = need.occurrences[need.occurrences.length - 1] as Occurrence;
      // Not stopped: its next tender is not due before now (even a late one).
      expect(last.effectiveEndDay).toBeGreaterThan(today - RENEWAL_MODEL.lateDays[1]);
    }
    const born = plan.needs.filter((n) => (n.occurrences[0]?.publishedDay ?? 0) >= plan.windowStartDay);
    expect(born.length / plan.needs.length).toBeGreaterThan(0.15);
    expect(born.length / plan.needs.length).toBeLessThan(0.45);
  });

  it("publishes the term in all three ways and announces extensions in every place", () => {
    const all = plan.needs.flatMap((n) => n.occurrences);
    const share = (f: (o: Occurrence) => boolean): number => all.filter(f).length / all.length;
    expect(share((o) => o.endStyle === "start-end")).toBeGreaterThan(0.2);
    expect(share((o) => o.endStyle === "start-duration")).toBeGreaterThan(0.3);
    expect(share((o) => o.endStyle === "duration")).toBeGreaterThan(0.2);
    expect(all.some((o) => o.endStyle === "start-end" && !o.durationPublished)).toBe(true);
    expect(all.every((o) => o.endStyle === "start-end" || o.durationPublished)).toBe(true);
    const extended = all.filter((o) => o.extension !== null);
    expect(extended.length / all.length).toBeGreaterThan(0.28);
    expect(extended.length / all.length).toBeLessThan(0.42);
    expect(extended.some((o) => o.extension?.text !== null && o.extension?.period)).toBe(true);
    expect(extended.some((o) => o.extension?.text !== null && !o.extension?.period)).toBe(true);
    expect(extended.some((o) => o.extension?.text === null && o.extension?.period)).toBe(true);
    expect(extended.some((o) => o.extension?.exercised)).toBe(true);
    expect(extended.some((o) => !o.extension?.exercised)).toBe(true);
    for (const o of extended) {
      expect([6, 12, 24]).toContain(o.extension?.months);
      expect(o.extension?.text ?? "Prórroga").toMatch(/[Pp]rórroga|[Pp]rorrogable/);
    }
  });

  it("is deterministic for a seed", () => {
    const project = (p: typeof plan) =>
      JSON.stringify(
        p.occurrences.map((o) => [o.need.id, o.need.buyer.nif, o.k, o.publishedDay, o.startDay, o.endStyle]),
      );
    const again = planRenewals(SEED, buildParties(SEED), { nowMs: NOW.getTime(), years: 7, folders: 1400 });
    expect(project(again)).toBe(project(plan));
    const other = planRenewals(SEED + 1, buildParties(SEED + 1), {
      nowMs: NOW.getTime(),
      years: 7,
      folders: 1400,
    });
    expect(project(other)).not.toBe(project(plan));
  });
});

async function* once(xml: string): AsyncGenerator<string> {
  yield xml;
}

interface Parsed {
  tender: NormalizedTender;
  start: string | null;
  end: string | null;
  duration: string | null;
  durationUnit: string | null;
  optionsText: string | null;
  optionMonths: string | null;
  optionUnit: string | null;
  optionDescription: string | null;
}

describe("recurring needs in the feed", () => {
  const OPTIONS: SyntheticFeedOptions = { entries: 2400, seed: SEED, now: NOW };
  const plan = syntheticRenewalPlan(OPTIONS);
  /** Newest version of each folder, as the real parser reads it. */
  const folders = new Map<string, Parsed>();

  beforeAll(async () => {
    for (const page of syntheticFeedPages(OPTIONS)) {
      for await (const item of readPlacspFeed(once(page.xml))) {
        if (item.kind !== "entry") {
          continue;
        }
        const { tender, errors } = normalizePlacspEntry(item.element, { feed: "643" });
        expect(errors).toEqual([]);
        if (folders.has(tender.sourceRef)) {
          continue;
        }
        const project = path(item.element, [cacExt("ContractFolderStatus"), cac("ProcurementProject")]);
        const period = path(project, [cac("PlannedPeriod")]);
        const duration = path(period, [cbc("DurationMeasure")]);
        const extension = path(project, [cac("ContractExtension")]);
        const option = path(extension, [cac("OptionValidityPeriod"), cbc("DurationMeasure")]);
        folders.set(tender.sourceRef, {
          tender,
          start: text(path(period, [cbc("StartDate")])),
          end: text(path(period, [cbc("EndDate")])),
          duration: text(duration),
          durationUnit: attr(duration, "unitCode"),
          optionsText: text(path(extension, [cbc("OptionsDescription")])),
          optionMonths: text(option),
          optionUnit: attr(option, "unitCode"),
          optionDescription: text(path(extension, [cac("OptionValidityPeriod"), cbc("Description")])),
        });
        // ContractExtension sits in the folder's ProcurementProject, right after PlannedPeriod.
        const blocks = pathAll(item.element, [
          cacExt("ContractFolderStatus"),
          cac("ProcurementProject"),
          cac("ContractExtension"),
        ]);
        expect(blocks.length).toBeLessThanOrEqual(1);
      }
    }
  }, 60_000);

  it("publishes every scheduled tender the walk reaches, with the need's buyer, division and day", () => {
    const byKey = new Map<string, Parsed[]>();
    for (const parsed of folders.values()) {
      const key = `${parsed.tender.buyer?.nif}|${parsed.tender.cpvMain?.slice(0, 2)}|${parsed.tender.publicationDate}`;
      byKey.set(key, [...(byKey.get(key) ?? []), parsed]);
    }
    const oldest = Math.min(
      ...[...folders.values()].map((p) => Date.parse(p.tender.publicationDate ?? "") / DAY_MS),
    );
    // Well inside the walked range (its oldest end is ragged: a folder's versions span months).
    const reached = plan.occurrences.filter((o) => o.publishedDay > oldest + 250);
    expect(reached.length).toBeGreaterThan(200);
    const found = reached.filter((o) =>
      byKey.has(`${o.need.buyer.nif}|${o.need.subject.cpvs[0]?.slice(0, 2)}|${formatDay(o.publishedDay)}`),
    );
    // A tombstone now and then re-plans a tender as cancelled, a few weeks earlier.
    expect(found.length / reached.length).toBeGreaterThan(0.97);
  });

  it("writes the term as start + end, start + duration or duration only, and extensions as CODICE", () => {
    const all = [...folders.values()];
    const startEnd = all.filter((p) => p.start !== null && p.end !== null);
    const startDuration = all.filter((p) => p.start !== null && p.end === null && p.duration !== null);
    const durationOnly = all.filter((p) => p.start === null && p.end === null && p.duration !== null);
    expect(startEnd.length).toBeGreaterThan(20);
    expect(startEnd.some((p) => p.duration === null)).toBe(true);
    expect(startDuration.length).toBeGreaterThan(20);
    expect(durationOnly.length).toBeGreaterThan(20);
    for (const p of startEnd) {
      expect((p.end ?? "") > (p.start ?? "")).toBe(true);
    }
    // The parser turns those into the forecasts' three end-date sources on the awards.
    const awards = all.flatMap((p) => p.tender.awards).filter((a) => a.winner !== null);
    expect(awards.some((a) => a.endDate !== null)).toBe(true);
    expect(awards.some((a) => a.endDate === null && a.startDate !== null && a.durationMonths !== null)).toBe(
      true,
    );
    expect(awards.some((a) => a.endDate === null && a.startDate === null && a.durationMonths !== null)).toBe(
      true,
    );

    const extended = all.filter((p) => p.optionsText !== null || p.optionMonths !== null);
    expect(extended.length).toBeGreaterThan(20);
    expect(extended.some((p) => p.optionsText !== null && p.optionMonths !== null)).toBe(true);
    expect(extended.some((p) => p.optionsText !== null && p.optionMonths === null)).toBe(true);
    expect(extended.some((p) => p.optionsText === null && p.optionDescription !== null)).toBe(true);
    for (const p of extended) {
      if (p.optionMonths !== null) {
        expect(p.optionUnit).toBe("MON");
        expect(["6", "12", "24"]).toContain(p.optionMonths);
      }
      expect(p.optionsText ?? p.optionDescription).toMatch(/[Pp]rórroga|[Pp]rorrogable/);
    }
  });

  it("keeps recurring tenders among one-off purchases of the same buyers and divisions", () => {
    const needKeys = new Set(plan.needs.map((n) => `${n.buyer.nif}|${n.subject.cpvs[0]?.slice(0, 2)}`));
    const scheduled = new Set(
      plan.occurrences.map(
        (o) => `${o.need.buyer.nif}|${o.need.subject.cpvs[0]?.slice(0, 2)}|${formatDay(o.publishedDay)}`,
      ),
    );
    let recurring = 0;
    let noise = 0;
    for (const { tender } of folders.values()) {
      const key = `${tender.buyer?.nif}|${tender.cpvMain?.slice(0, 2)}`;
      if (scheduled.has(`${key}|${tender.publicationDate}`)) {
        recurring++;
      } else if (needKeys.has(key)) {
        noise++;
      }
    }
    expect(recurring / folders.size).toBeGreaterThan(0.18);
    expect(recurring / folders.size).toBeLessThan(0.32);
    expect(noise).toBeGreaterThan(recurring / 2);
  });
});
