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

  it("derives the contract end from a published end date (high), start + duration (medium), award + duration (low)", () => {
    const a1 = byKey(signals, `duration_expiry:award:${ids.A1}`);
    expect(a1).toMatchObject({
      cpv: "72212000",
      confidence: "high",
      window_start: "2024-09-30",
      window_end: "2025-05-31",
      predicted_date: "2025-03-31",
    });
    expect(a1.basis).toMatchObject({
      signal_type: "duration_expiry",
      basis_version: 1,
      tender_ref: "T1",
      award_ref: `award-ref-${ids.T1}-0`,
      start_date: "2023-04-01",
      end_date: "2025-03-31",
      end_date_source: "published_end_date",
      incumbent: { name: "Acme Sistemas SL" },
      max_end_date: null,
    });
    const a2 = byKey(signals, `duration_expiry:award:${ids.A2}`);
    expect(a2).toMatchObject({ confidence: "medium", window_start: "2024-08-15", window_end: "2025-04-15" });
    expect(a2.basis).toMatchObject({
      end_date: "2025-02-15",
      end_date_source: "start_plus_duration",
      duration_months: 12,
    });
    const a3 = byKey(signals, `duration_expiry:award:${ids.A3}`);
    expect(a3).toMatchObject({ confidence: "low", window_start: "2025-11-20", window_end: "2026-07-20" });
    expect(a3.basis).toMatchObject({ end_date: "2026-05-20", end_date_source: "award_plus_duration" });
  });

  it("gives frameworks their own type and wider window", () => {
    const a4 = byKey(signals, `framework_expiry:award:${ids.A4}`);
    expect(a4).toMatchObject({
      signal_type: "framework_expiry",
      confidence: "medium",
      window_start: "2025-04-01",
      window_end: "2026-04-01",
    });
    expect(a4.basis).toMatchObject({ end_date: "2026-01-01", end_date_source: "start_plus_duration" });
  });

  it("lowers confidence when extensions are announced and shows the latest end", () => {
    const a5 = byKey(signals, `duration_expiry:award:${ids.A5}`);
    expect(a5).toMatchObject({ confidence: "low", window_start: "2025-06-30", window_end: "2026-02-28" });
    expect(a5.basis).toMatchObject({
      end_date_source: "published_end_date",
      max_end_date: "2026-12-31",
      extension_text: "Prórroga por 12 meses adicionales",
    });
  });

  it("makes no signal from a void result", () => {
    expect(signals.some((s) => s.basis_key === `duration_expiry:award:${ids.A6}`)).toBe(false);
    expect(signals.filter((s) => s.buyer_id === b1).map((s) => s.signal_type)).toEqual([
      "duration_expiry",
      "duration_expiry",
      "duration_expiry",
      "duration_expiry",
      "framework_expiry",
    ]);
  });

  it("marks a signal re-tendered when the buyer published in the division after the award, before the window's end", () => {
    const a1 = byKey(signals, `duration_expiry:award:${ids.A1}`);
    expect(a1.retendered_by).toBe(ids.T9);
    expect(a1.basis.retendered_by).toBe("T9");
    // T9 is in division 72; the other B1 signals are in other divisions.
    for (const key of [ids.A2, ids.A3, ids.A5].map((id) => `duration_expiry:award:${id}`)) {
      expect(byKey(signals, key).retendered_by).toBeNull();
    }
  });

  it("counts the lots of one award day as one event (3 events: high)", () => {
    const r = byKey(signals, `recurrence:buyer:${b2}:division:48`);
    expect(r).toMatchObject({
      cpv: "48000000",
      confidence: "high",
      window_start: "2023-12-19",
      window_end: "2024-06-22",
      predicted_date: "2024-03-21",
      evidence_tender_ids: [ids.T20, ids.T21, ids.T22],
    });
    expect(r.basis).toMatchObject({
      signal_type: "recurrence",
      basis_version: 1,
      evidence_count: 3,
      intervals_days: [365, 379],
      median_interval_days: 372,
      last_award_date: "2023-03-15",
      predicted_date: "2024-03-21",
      award_history: [
        { award_date: "2021-03-01", source_ref: `award-ref-${ids.T20}-1` },
        { award_date: "2022-03-01", source_ref: `award-ref-${ids.T21}-0` },
        { award_date: "2023-03-15", source_ref: `award-ref-${ids.T22}-0` },
      ],
      retendered_by: null,
    });
    expect((r.basis.award_refs as string[]).length).toBe(5);
    // The rule texts are the same for every recurrence signal: served (withRules), not stored.
    expect(r.basis.window_rule).toBeUndefined();
    expect(r.basis.confidence_rule).toBeUndefined();
  });

  it("gives exactly 2 events medium confidence", () => {
    const r = byKey(signals, `recurrence:buyer:${b3}:division:72`);
    expect(r).toMatchObject({
      confidence: "medium",
      window_start: "2024-03-01",
      window_end: "2024-08-30",
      predicted_date: "2024-05-31",
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
    // B3 publishes a re-tender inside the window; B2 gets a fourth award day; B1 is untouched.
    await insertTender(t.db, {
      sourceRef: "T32",
      buyerId: b3,
      cpvAll: ["72100000"],
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
    expect(byKey(incremental, `recurrence:buyer:${b3}:division:72`).basis.retendered_by).toBe("T32");
    expect(byKey(incremental, `recurrence:buyer:${b2}:division:48`).basis.evidence_count).toBe(4);
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
    // Three buyers marked: each publishes a tender (B2 in division 48, B1 and B3 in 72).
    for (const [i, buyerId] of [b1, b2, b3].entries()) {
      await insertTender(t.db, {
        sourceRef: `T-CHUNK-${i}`,
        buyerId,
        cpvAll: [i === 1 ? "48000000" : "72100000"],
        publicationDate: "2024-05-02",
      });
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
    // A new title for T9 (B1, division 72) marks the pair dirty; no signal reads a title.
    await t.db.query("UPDATE tenders SET title = 'Renamed re-tender' WHERE source_ref = 'T9'");
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
    expect(after.some((s) => s.basis_key === `duration_expiry:award:${ids.A5}`)).toBe(false);
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
    // 2025-10-01 - 90 days = 2025-07-03: A1 (ends 2025-05-31), A2 (2025-04-15) and both recurrences (2024) go;
    // A3 (2026-07-20) and A4 (2026-04-01) stay (A5's tender was deleted above).
    const later = () => new Date("2025-10-01T08:00:00Z");
    const step = await recomputeSignals({ db: t.db, log, now: later });
    expect(step.buyers).toBe(0); // nothing changed: only the retention applies
    const kept = await storedSignals(t.db);
    expect(kept.map((s) => s.basis_key)).toEqual([
      `duration_expiry:award:${ids.A3}`,
      `framework_expiry:award:${ids.A4}`,
    ]);
    await recomputeSignals({ db: t.db, log, now: later, full: true });
    expect(await storedSignals(t.db)).toEqual(kept);
  });
});
