import { beforeAll, describe, expect, it } from "vitest";
import { backtestRenewals } from "../../src/analytics/renewals/backtest.ts";
import { recomputeSignals } from "../../src/analytics/renewals/recompute.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { type RenewalHistory, seedRenewalHistory } from "../helpers/renewal-history.ts";

const t = useTestDb();
const log = createLogger("silent");
/** A clock before every crafted window ends: signal retention (90 days back from it) keeps them all. */
const KEEP_ALL = () => new Date("2023-01-01T00:00:00Z");
/** "Today" of every call: windows overlapping [2025-01-01, 2025-01-01 + window_months] are listed. */
const NOW = new Date("2025-01-01T09:00:00.000Z");

/*
 * The crafted history of test/helpers/renewal-history.ts, seen on 2025-01-01 with the default 12 months
 * ([2025-01-01, 2026-01-01]):
 *   T2  duration low      2024-10-13 .. 2025-01-11   only with min_confidence=low
 *   T1  duration high     2024-12-26 .. 2025-03-26   re-tendered by T9: only with include_retendered
 *   T11 duration high     2025-04-02 .. 2025-07-01   listed
 *   T5  duration low      2025-09-16 .. 2025-12-15   only with min_confidence=low
 *   T4  framework low     2025-09-17 .. 2025-12-16   only with min_confidence=low
 *   T3, T10               from 2026-01-15            after the 12 months
 *   recurrences of B2, B3 over before today
 */
let h: RenewalHistory;

beforeAll(async () => {
  h = await seedRenewalHistory(t.db);
  await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
});

async function renewals(query = "") {
  const { app } = buildTestApp({ db: t.db, now: () => NOW });
  return getJson(app, `/v1/renewals${query}`, { "x-payment": await devToken(app, "GET /v1/renewals") });
}

interface Signal {
  id: number;
  signal_type: string;
  window_start: string;
  confidence: string;
  buyer: { id: number; name: string; nuts: string | null };
  basis: { tender_ref?: string; signal_type: string };
}
const tendersOf = (body: { data?: unknown }) =>
  (body.data as { signals: Signal[] }).signals.map((s) => s.basis.tender_ref);

describe("GET /v1/renewals", () => {
  it("lists the open signals of measured skill overlapping the window, by window start, confidence, id", async () => {
    const { res, body } = await renewals();
    expect(res.status).toBe(200);
    expect(tendersOf(body)).toEqual(["T11"]);
    const first = (body.data as { signals: Signal[] }).signals[0] as Signal;
    expect(first).toMatchObject({
      signal_type: "duration_expiry",
      cpv: "60130000",
      window_start: "2025-04-02",
      window_end: "2025-07-01",
      confidence: "high",
      buyer: { id: h.b1, name: "Ayuntamiento de Prueba", nuts: null },
      basis: {
        signal_type: "duration_expiry",
        tender_ref: "T11",
        lots: 2,
        end_date: "2025-07-01",
        window_rule: expect.stringContaining("end minus call_lead_days"),
        confidence_rule: expect.stringContaining("high: the buyer published at least one related tender"),
        confidence_measured: {
          confidence: "high",
          hit_rate: expect.any(Number),
          baseline_rate: expect.any(Number),
          measured_on: expect.stringContaining("REVASCON"),
        },
      },
    });
    const meta = body.meta as Record<string, unknown>;
    expect(meta).toMatchObject({
      page: 1,
      total: 1,
      price_usd: "0.25",
      paid: true,
      confidence_scale: ["low", "medium", "high"],
      backtest: null,
    });
    expect(meta.methodology).toMatch(/deterministic heuristic .*not a calibrated probability/);
    // The notices of the signal's procedure: both tenders published under one title.
    expect((meta.provenance as { source_ref: string }[]).map((p) => p.source_ref)).toEqual(["T11", "T12"]);
  });

  it("lists low-confidence signals only when asked, and re-tendered signals only when asked", async () => {
    expect(tendersOf((await renewals("?min_confidence=low")).body)).toEqual(["T2", "T11", "T5", "T4"]);
    const { body } = await renewals("?min_confidence=low&include_retendered=true");
    expect(tendersOf(body)).toEqual(["T2", "T1", "T11", "T5", "T4"]);
    const t1 = (body.data as { signals: Signal[] }).signals[1] as Signal;
    expect(t1.basis).toMatchObject({ retendered_by: "T9", confidence_measured: { confidence: "high" } });
    const t2 = (body.data as { signals: Signal[] }).signals[0] as Signal;
    expect(t2.basis).toMatchObject({ confidence_measured: { confidence: "low" } });
  });

  it("filters by confidence, CPV prefix, buyer fragment and window length", async () => {
    expect(tendersOf((await renewals("?min_confidence=high")).body)).toEqual(["T11"]);
    expect(tendersOf((await renewals("?cpv=79&min_confidence=low")).body)).toEqual(["T2"]);
    expect(tendersOf((await renewals("?cpv=72212000-5&include_retendered=true")).body)).toEqual(["T1"]);
    expect(
      tendersOf((await renewals("?buyer=AYUNTAMIENTO%20de%20prueba&min_confidence=low")).body),
    ).toHaveLength(4);
    expect(tendersOf((await renewals("?buyer=Consejeria&min_confidence=low")).body)).toEqual([]);
    // [2025-01-01, 2025-04-01]: T2 ends 2025-01-11, T11 starts 2025-04-02.
    expect(tendersOf((await renewals("?window_months=3&min_confidence=low")).body)).toEqual(["T2"]);
  });

  it("pages with a stable total", async () => {
    const { body } = await renewals("?min_confidence=low&size=2&page=2");
    expect(tendersOf(body)).toEqual(["T5", "T4"]);
    expect(body.meta).toMatchObject({ page: 2, total: 4 });
  });

  it("finds a buyer's recurrence when its window is near", async () => {
    const { app } = buildTestApp({ db: t.db, now: () => new Date("2024-01-05T00:00:00Z") });
    const { body } = await getJson(app, "/v1/renewals?cpv=48&window_months=1", {
      "x-payment": await devToken(app, "GET /v1/renewals"),
    });
    const signals = (body.data as { signals: Signal[] }).signals;
    expect(signals.map((s) => [s.signal_type, s.buyer.id, s.confidence])).toEqual([
      ["recurrence", h.b2, "medium"],
    ]);
  });

  it("reports the latest backtest in meta.backtest", async () => {
    await backtestRenewals({ db: t.db, log, asOf: ["2024-06-01"], now: new Date("2025-01-01T00:00:00Z") });
    const { body } = await renewals();
    const backtest = (body.meta as { backtest: Record<string, unknown> }).backtest;
    expect(backtest).toMatchObject({
      run_at: "2025-01-01T00:00:00.000Z",
      version: 2,
      as_of: ["2024-06-01"],
      coverage_end_from: "data",
    });
    // 3 types x 3 confidences, 3 types, overall.
    expect((backtest.rows as unknown[]).length).toBe(13);
  });
});

describe("bad input", () => {
  it.each([
    ["?window_months=0", "window_months"],
    ["?window_months=37", "window_months"],
    ["?window_months=1.5", "window_months"],
    ["?min_confidence=certain", "min_confidence"],
    ["?include_retendered=yes", "include_retendered"],
    ["?cpv=7", "cpv"],
    ["?buyer=a", "buyer"],
    ["?size=101", "size"],
    ["?page=0", "page"],
  ])("%s -> 400 invalid_query naming %s, before any payment", async (query, name) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, `/v1/renewals${query}`);
    expect(res.status).toBe(400);
    const error = (body as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain(`parameter "${name}"`);
    expect(error.hint.length).toBeGreaterThan(0);
  });

  it("asks for payment (402) once the input is valid", async () => {
    const { app } = buildTestApp({ db: t.db });
    expect((await app.request("/v1/renewals?window_months=6")).status).toBe(402);
  });
});
