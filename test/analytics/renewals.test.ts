import { beforeAll, describe, expect, it } from "vitest";
import { recomputeSignals } from "../../src/analytics/renewals/recompute.ts";
import { signalId } from "../../src/analytics/renewals/rules.ts";
import type { Queryable } from "../../src/db/client.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";
import { insertContract, seedRenewalHistory } from "../helpers/renewal-history.ts";

const t = useTestDb();
const log = createLogger("silent");
/** A clock before every crafted window ends: signal retention (90 days back from it) keeps them all. */
const KEEP_ALL = () => new Date("2023-01-01T00:00:00Z");

interface StoredSignal {
  id: number;
  basis_key: string;
  signal_type: string;
  cpv: string;
  buyer_id: number;
  window_start: string;
  window_end: string;
  predicted_date: string;
  confidence: string;
  retendered_by: number | null;
  evidence_tender_ids: number[];
  basis: Record<string, unknown>;
}

async function storedSignals(db: Queryable): Promise<StoredSignal[]> {
  const { rows } = await db.query<StoredSignal>(
    `SELECT id, basis_key, signal_type, cpv, buyer_id, window_start, window_end, predicted_date, confidence,
            retendered_by, evidence_tender_ids, basis
       FROM renewal_signals ORDER BY basis_key`,
  );
  // node-postgres returns int8[] elements as strings (PGlite as numbers).
  return rows.map((r) => ({ ...r, evidence_tender_ids: r.evidence_tender_ids.map(Number) }));
}

/** Each stored signal's row version (xmin): unchanged when the row was not rewritten. */
async function signalVersions(db: Queryable): Promise<Map<string, string>> {
  const { rows } = await db.query<{ basis_key: string; version: string }>(
    "SELECT basis_key, xmin::text AS version FROM renewal_signals",
  );
  return new Map(rows.map((r) => [r.basis_key, r.version]));
}

const byKey = (signals: StoredSignal[], key: string) => {
  const signal = signals.find((s) => s.basis_key === key);
  if (!signal) {
    throw new Error(`no signal ${key}; have ${signals.map((s) => s.basis_key).join(", ")}`);
  }
  return signal;
};

/* The crafted history and its arithmetic: test/helpers/renewal-history.ts. */
describe("renewal signals on a crafted history", () => {
  let signals: StoredSignal[] = [];
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ b1, b2, b3, ids } = await seedRenewalHistory(t.db));
    const result = await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    expect(result.buyers).toBe(3);
    signals = await storedSignals(t.db);
  });

  const expiry = (tender: string, division: string, type = "duration_expiry") =>
    byKey(signals, `${type}:tender:${ids[tender]}:division:${division}`);
  const recurrence = (buyer: number, cls: string, from: string) =>
    byKey(signals, `recurrence:buyer:${buyer}:class:${cls}:from:${from}`);

  it("predicts the re-tender at the contract end less the buyer's call lead, from the best end it knows", () => {
    const a1 = expiry("T1", "72");
    expect(a1).toMatchObject({
      cpv: "72212000",
      predicted_date: "2025-02-09",
      window_start: "2024-12-26",
      window_end: "2025-03-26",
    });
    expect(a1.basis).toMatchObject({
      signal_type: "duration_expiry",
      basis_version: 2,
      tender_ref: "T1",
      tender_title: "Desarrollo y soporte de la sede electrónica",
      award_ref: `award-ref-${ids.T1}-0`,
      lots: 1,
      start_date: "2023-04-01",
      end_date: "2025-03-31",
      end_date_source: "published_end_date",
      call_lead_days: 50,
      predicted_date: "2025-02-09",
      incumbent: { name: "Acme Sistemas SL" },
      max_end_date: null,
    });
    expect(expiry("T2", "79")).toMatchObject({ window_start: "2024-10-13", window_end: "2025-01-11" });
    expect(expiry("T2", "79").basis).toMatchObject({
      end_date: "2025-02-15",
      end_date_source: "start_plus_duration",
      duration_months: 12,
      call_lead_days: 80,
      predicted_date: "2024-11-27",
    });
    expect(expiry("T3", "50")).toMatchObject({ window_start: "2026-01-15", window_end: "2026-04-15" });
    expect(expiry("T3", "50").basis).toMatchObject({
      end_date: "2026-05-20",
      end_date_source: "award_plus_duration",
      predicted_date: "2026-03-01",
    });
  });

  it("is confident when the buyer kept buying what the contract covers in the year before the award", () => {
    expect(expiry("T1", "72")).toMatchObject({ confidence: "high" });
    expect(expiry("T1", "72").basis).toMatchObject({ related_in_prior_year: 1 });
    expect(expiry("T11", "60")).toMatchObject({ confidence: "high" });
    for (const [tender, division] of [
      ["T2", "79"],
      ["T3", "50"],
      ["T5", "64"],
    ] as const) {
      expect(expiry(tender, division)).toMatchObject({ confidence: "low" });
      expect(expiry(tender, division).basis).toMatchObject({ related_in_prior_year: 0 });
    }
  });

  it("gives frameworks their own type", () => {
    const a4 = expiry("T4", "48", "framework_expiry");
    expect(a4).toMatchObject({
      signal_type: "framework_expiry",
      window_start: "2025-09-17",
      window_end: "2025-12-16",
    });
    expect(a4.basis).toMatchObject({ end_date: "2026-01-01", call_lead_days: 61 });
  });

  it("shows announced extensions and the latest end they allow", () => {
    const a5 = expiry("T5", "64");
    expect(a5).toMatchObject({ window_start: "2025-09-16", window_end: "2025-12-15" });
    expect(a5.basis).toMatchObject({
      end_date_source: "published_end_date",
      max_end_date: "2026-12-31",
      extension_text: "Prórroga por 12 meses adicionales",
    });
  });

  it("makes one signal per procedure and division: lots of a tender, and tenders published together under one title", () => {
    const t10 = expiry("T10", "72");
    expect(t10).toMatchObject({
      window_start: "2026-01-16",
      window_end: "2026-04-16",
      evidence_tender_ids: [ids.T10],
    });
    expect(t10.basis).toMatchObject({
      lots: 2,
      award_id: ids["A10-2"],
      end_date: "2026-05-01",
      lot_award_refs: [`award-ref-${ids.T10}-1`, `award-ref-${ids.T10}-2`],
    });
    const t11 = expiry("T11", "60");
    expect(t11).toMatchObject({
      window_start: "2025-04-02",
      window_end: "2025-07-01",
      evidence_tender_ids: [ids.T11, ids.T12],
    });
    expect(t11.basis).toMatchObject({ lots: 2, call_lead_days: 45, predicted_date: "2025-05-17" });
    expect(signals.some((s) => s.basis_key.includes(`:tender:${ids.T12}:`))).toBe(false);
  });

  it("forecasts no void result and no minor contract", () => {
    expect(signals.filter((s) => s.buyer_id === b1).map((s) => s.basis_key)).toEqual(
      [
        `duration_expiry:tender:${ids.T1}:division:72`,
        `duration_expiry:tender:${ids.T2}:division:79`,
        `duration_expiry:tender:${ids.T3}:division:50`,
        `duration_expiry:tender:${ids.T5}:division:64`,
        `duration_expiry:tender:${ids.T10}:division:72`,
        `duration_expiry:tender:${ids.T11}:division:60`,
        `framework_expiry:tender:${ids.T4}:division:48`,
      ].sort(),
    );
  });

  it("marks a signal re-tendered only by a related tender published inside its window", () => {
    const a1 = expiry("T1", "72");
    // T9 is of another class but has the same title stems; T8 shares the class but came before the window.
    expect(a1.retendered_by).toBe(ids.T9);
    expect(a1.basis.retendered_by).toBe("T9");
    for (const signal of signals.filter((s) => s.buyer_id === b1 && s.basis_key !== a1.basis_key)) {
      expect(signal.retendered_by, signal.basis_key).toBeNull();
    }
  });

  it("forecasts a class's purchases a year after each burst, with the lots of one day as one event", () => {
    const second = recurrence(b2, "4800", "2022-01-15");
    expect(second).toMatchObject({
      cpv: "48000000",
      confidence: "medium",
      predicted_date: "2023-01-15",
      window_start: "2022-12-16",
      window_end: "2023-02-14",
      retendered_by: ids.T22,
    });
    expect(second.basis).toMatchObject({ yearly_cycle_seen: true, cycle_event_date: "2021-01-10" });
    const third = recurrence(b2, "4800", "2023-01-20");
    expect(third).toMatchObject({
      confidence: "medium",
      predicted_date: "2024-01-20",
      window_start: "2023-12-21",
      window_end: "2024-02-19",
      retendered_by: null,
      evidence_tender_ids: [ids.T20, ids.T21, ids.T22],
    });
    expect(third.basis).toMatchObject({
      signal_type: "recurrence",
      basis_version: 2,
      cpv_class: "4800",
      evidence_count: 3,
      intervals_days: [370, 370],
      median_interval_days: 370,
      last_award_date: "2023-03-15",
      last_event_date: "2023-01-20",
      predicted_date: "2024-01-20",
      yearly_cycle_seen: true,
      cycle_event_date: "2022-01-15",
      award_history: [
        { award_date: "2021-03-01", event_date: "2021-01-10", source_ref: `award-ref-${ids.T20}-1` },
        { award_date: "2022-03-01", event_date: "2022-01-15", source_ref: `award-ref-${ids.T21}-0` },
        { award_date: "2023-03-15", event_date: "2023-01-20", source_ref: `award-ref-${ids.T22}-0` },
      ],
      retendered_by: null,
    });
    expect((third.basis.award_refs as string[]).length).toBe(5);
    // One event is no recurrence.
    expect(signals.some((s) => s.basis_key === `recurrence:buyer:${b2}:class:4800:from:2021-01-10`)).toBe(
      false,
    );
    // The rule texts and measured rates are the same for every recurrence signal: served (withRules), not stored.
    expect(third.basis.window_rule).toBeUndefined();
    expect(third.basis.confidence_rule).toBeUndefined();
    expect(third.basis.confidence_measured).toBeUndefined();
  });

  it("forecasts a yearly purchase across a leap year", () => {
    const r = recurrence(b3, "7200", "2023-04-01");
    expect(r).toMatchObject({
      confidence: "medium",
      window_start: "2024-03-02",
      window_end: "2024-05-01",
      predicted_date: "2024-04-01",
    });
    expect(r.basis).toMatchObject({ evidence_count: 2, intervals_days: [365], median_interval_days: 365 });
  });

  it("derives the id from the basis key, so a recompute keeps every id and byte", async () => {
    for (const signal of signals) {
      expect(signal.id).toBe(signalId(signal.basis_key));
    }
    await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    expect(await storedSignals(t.db)).toEqual(signals);
  });

  it("recomputes only the buyer x division pairs an ingest touched, with the same result as a full recompute", async () => {
    // Everything is clean after the full recompute: an incremental step has nothing to do.
    expect((await recomputeSignals({ db: t.db, log, now: KEEP_ALL })).buyers).toBe(0);
    const before = await storedSignals(t.db);
    const versions = await signalVersions(t.db);
    // B3 publishes a re-tender inside the window; B2 gets a fourth event; B1 is untouched.
    await insertTender(t.db, {
      sourceRef: "T32",
      buyerId: b3,
      cpvAll: ["72000000"],
      publicationDate: "2024-04-10",
    });
    const t23 = await insertTender(t.db, {
      sourceRef: "T23",
      buyerId: b2,
      cpvAll: ["48000000"],
      publicationDate: "2024-01-10",
    });
    await insertContract(t.db, { tenderId: t23, winnerId: null, cpv: "48000000", awardDate: "2024-03-01" });
    await t.db.query(
      "UPDATE awards SET winner_company_id = (SELECT min(id) FROM companies) WHERE tender_id = $1",
      [t23],
    );
    const step = await recomputeSignals({ db: t.db, log, now: KEEP_ALL });
    expect(step).toMatchObject({ buyers: 2, pairs: 2 }); // B3 in division 72, B2 in 48
    const incremental = await storedSignals(t.db);
    expect(byKey(incremental, `recurrence:buyer:${b3}:class:7200:from:2023-04-01`).basis.retendered_by).toBe(
      "T32",
    );
    expect(byKey(incremental, `recurrence:buyer:${b2}:class:4800:from:2023-01-20`).basis.retendered_by).toBe(
      "T23",
    );
    expect(byKey(incremental, `recurrence:buyer:${b2}:class:4800:from:2024-01-10`).basis.evidence_count).toBe(
      4,
    );
    // Only new or changed signals were written: the touched pairs' unchanged signals keep their row version.
    const touched = (s: StoredSignal) =>
      (s.buyer_id === b3 && s.cpv.startsWith("72")) || (s.buyer_id === b2 && s.cpv.startsWith("48"));
    const stored = new Map(before.map((s) => [s.basis_key, s]));
    const changed = incremental.filter((s) => JSON.stringify(stored.get(s.basis_key)) !== JSON.stringify(s));
    const unchanged = incremental.filter((s) => touched(s) && !changed.includes(s));
    expect(changed.length).toBeGreaterThan(0);
    expect(step.written).toBe(changed.length);
    expect(step.removed).toBe(
      before.filter((s) => !incremental.some((n) => n.basis_key === s.basis_key)).length,
    );
    const afterVersions = await signalVersions(t.db);
    for (const signal of unchanged) {
      expect(afterVersions.get(signal.basis_key), signal.basis_key).toBe(versions.get(signal.basis_key));
    }
    for (const signal of changed) {
      expect(afterVersions.get(signal.basis_key), signal.basis_key).not.toBe(versions.get(signal.basis_key));
    }
    await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    expect(await storedSignals(t.db)).toEqual(incremental);
  });

  it("gives the same table a few buyers per transaction as in one (the embedded engine's background lane)", async () => {
    const full = await storedSignals(t.db);
    // Three buyers marked: each publishes a related tender inside an open window, before any re-tender it had
    // (B1: A1's class 7221; B2: class 4800, the burst of 2024-01-10; B3: class 7200, before T32).
    for (const [i, [buyerId, cpv, date]] of (
      [
        [b1, "72212000", "2024-12-27"],
        [b2, "48000000", "2024-12-20"],
        [b3, "72000000", "2024-03-05"],
      ] as const
    ).entries()) {
      await insertTender(t.db, { sourceRef: `T-CHUNK-${i}`, buyerId, cpvAll: [cpv], publicationDate: date });
    }
    const step = await recomputeSignals({ db: t.db, log, now: KEEP_ALL, buyersPerTransaction: 1 });
    // One transaction per buyer, and the one that found no marks left (and applied retention).
    expect(step).toMatchObject({ buyers: 3, pairs: 3, transactions: 4 });
    const chunked = await storedSignals(t.db);
    expect(chunked).not.toEqual(full);
    expect((await recomputeSignals({ db: t.db, log, now: KEEP_ALL })).buyers).toBe(0);
    await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    expect(await storedSignals(t.db)).toEqual(chunked);
    // Two buyers per transaction: the second takes the last one and ends there.
    for (const [i, buyerId] of [b1, b2, b3].entries()) {
      await insertTender(t.db, {
        sourceRef: `T-CHUNK-B${i}`,
        buyerId,
        cpvAll: [i === 1 ? "48000000" : "72100000"],
        publicationDate: "2024-05-03",
      });
    }
    expect(await recomputeSignals({ db: t.db, log, now: KEEP_ALL, buyersPerTransaction: 2 })).toMatchObject({
      buyers: 3,
      transactions: 2,
    });
  });

  it("rewrites nothing when a touched pair's signals come out the same", async () => {
    const before = await storedSignals(t.db);
    const versions = await signalVersions(t.db);
    // A new title for T8 (B1, division 72) marks the pair dirty; it is related to no signal by title or time.
    await t.db.query("UPDATE tenders SET title = 'Otra cosa distinta' WHERE source_ref = 'T8'");
    const step = await recomputeSignals({ db: t.db, log, now: KEEP_ALL });
    expect(step).toMatchObject({ buyers: 1, pairs: 1, written: 0, removed: 0 });
    const pairSignals = before.filter((s) => s.buyer_id === b1 && s.cpv.startsWith("72"));
    expect(pairSignals.length).toBeGreaterThan(0);
    expect(step.signals).toBe(pairSignals.length);
    expect(await storedSignals(t.db)).toEqual(before);
    expect(await signalVersions(t.db)).toEqual(versions);
  });

  it("drops a deleted tender's signals at the next step, rewriting nothing of the buyer's other divisions", async () => {
    const versions = await signalVersions(t.db);
    await t.db.query("DELETE FROM tenders WHERE source_ref = 'T5'"); // B1, division 64
    const step = await recomputeSignals({ db: t.db, log, now: KEEP_ALL });
    expect(step).toMatchObject({ buyers: 1, pairs: 1 });
    const after = await storedSignals(t.db);
    expect(after.some((s) => s.basis_key === `duration_expiry:tender:${ids.T5}:division:64`)).toBe(false);
    // B1's signals in its other divisions are the rows they were (same row version).
    const b1Others = after.filter((s) => s.buyer_id === b1);
    expect(b1Others.length).toBeGreaterThan(0);
    const afterVersions = await signalVersions(t.db);
    for (const signal of b1Others) {
      expect(afterVersions.get(signal.basis_key), signal.basis_key).toBe(versions.get(signal.basis_key));
    }
    await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    expect(await storedSignals(t.db)).toEqual(after);
  });

  it("recomputes the pairs of a renamed incumbent's awards: its name is part of their basis", async () => {
    await t.db.query(
      "UPDATE companies SET name = name || ' (renamed)' WHERE id = (SELECT min(id) FROM companies)",
    );
    const step = await recomputeSignals({ db: t.db, log, now: KEEP_ALL });
    expect(step.pairs).toBeGreaterThan(0);
    const renamed = await storedSignals(t.db);
    expect(JSON.stringify(renamed)).toContain("(renamed)");
    await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    expect(await storedSignals(t.db)).toEqual(renamed);
  });

  it("keeps only signals whose window ended at most 90 days before the clock's day, full or incremental", async () => {
    // 2025-10-01 - 90 days = 2025-07-03: A1 (window ends 2025-03-26), A2 (2025-01-11), T11 (2025-07-01) and the
    // recurrences (2025-02 at the latest) go; A3 (2026-04-15), A4 (2025-12-16) and T10 (2026-04-16) stay (A5's
    // tender was deleted above).
    const later = () => new Date("2025-10-01T08:00:00Z");
    const step = await recomputeSignals({ db: t.db, log, now: later });
    expect(step.buyers).toBe(0); // nothing changed: only the retention applies
    const kept = await storedSignals(t.db);
    expect(kept.map((s) => s.basis_key)).toEqual(
      [
        `duration_expiry:tender:${ids.T3}:division:50`,
        `duration_expiry:tender:${ids.T10}:division:72`,
        `framework_expiry:tender:${ids.T4}:division:48`,
      ].sort(),
    );
    await recomputeSignals({ db: t.db, log, now: later, full: true });
    expect(await storedSignals(t.db)).toEqual(kept);
  });
});
