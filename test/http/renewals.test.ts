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
 *   A2 duration medium 2024-08-15 .. 2025-04-15   listed
 *   A1 duration high   2024-09-30 .. 2025-05-31   re-tendered by T9: only with include_retendered
 *   A4 framework medium 2025-04-01 .. 2026-04-01  listed
 *   A5 duration low    2025-06-30 .. 2026-02-28   listed
 *   A3 duration low    2025-11-20 .. 2026-07-20   listed
 *   B2 recurrence      2023-12-19 .. 2024-06-22   over before today
 *   B3 recurrence      2024-03-01 .. 2024-08-30   over before today
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
  basis: { award_id?: number; signal_type: string };
}
const awardsOf = (body: { data?: unknown }) =>
  (body.data as { signals: Signal[] }).signals.map((s) => s.basis.award_id);

describe("GET /v1/renewals", () => {
  it("lists open signals overlapping the window, by window start, confidence, id", async () => {
    const { res, body } = await renewals();
    expect(res.status).toBe(200);
    const { ids } = h;
    expect(awardsOf(body)).toEqual([ids.A2, ids.A4, ids.A5, ids.A3]);
    const first = (body.data as { signals: Signal[] }).signals[0] as Signal;
    expect(first).toMatchObject({
      signal_type: "duration_expiry",
      cpv: "79400000",
      window_start: "2024-08-15",
      window_end: "2025-04-15",
      confidence: "medium",
      buyer: { id: h.b1, name: "Ayuntamiento de Prueba", nuts: null },
      basis: {
        signal_type: "duration_expiry",
        tender_ref: "T2",
        end_date: "2025-02-15",
        window_rule: expect.stringContaining(
          "From 6 months before the contract's end date to 2 months after it",
        ),
        confidence_rule: expect.stringContaining("high: the notice publishes the contract's end date"),
      },
    });
    const meta = body.meta as Record<string, unknown>;
    expect(meta).toMatchObject({
      page: 1,
      total: 4,
      price_usd: "0.25",
      paid: true,
      confidence_scale: ["low", "medium", "high"],
      backtest: null,
    });
    expect(meta.methodology).toMatch(/deterministic heuristic .*not a calibrated probability/);
    // The notices of the awards the listed signals use, in signal order.
    expect((meta.provenance as { source_ref: string }[]).map((p) => p.source_ref)).toEqual([
      "T2",
      "T4",
      "T5",
      "T3",
    ]);
  });

  it("lists re-tendered signals only when asked", async () => {
    const { body } = await renewals("?include_retendered=true");
    const { ids } = h;
    expect(awardsOf(body)).toEqual([ids.A2, ids.A1, ids.A4, ids.A5, ids.A3]);
    const a1 = (body.data as { signals: Signal[] }).signals[1] as Signal;
    expect(a1.basis).toMatchObject({ retendered_by: "T9" });
  });

  it("filters by confidence, CPV prefix, buyer fragment and window length", async () => {
    const { ids } = h;
    expect(awardsOf((await renewals("?min_confidence=medium")).body)).toEqual([ids.A2, ids.A4]);
    expect(awardsOf((await renewals("?min_confidence=high")).body)).toEqual([]);
    expect(awardsOf((await renewals("?cpv=79")).body)).toEqual([ids.A2]);
    expect(awardsOf((await renewals("?cpv=72212000-5&include_retendered=true")).body)).toEqual([ids.A1]);
    expect(awardsOf((await renewals("?buyer=AYUNTAMIENTO%20de%20prueba")).body)).toHaveLength(4);
    expect(awardsOf((await renewals("?buyer=Consejeria")).body)).toEqual([]);
    // [2025-01-01, 2025-04-01]: A2 ends 2025-04-15, A4 starts 2025-04-01.
    expect(awardsOf((await renewals("?window_months=3")).body)).toEqual([ids.A2, ids.A4]);
  });

  it("pages with a stable total", async () => {
    const { body } = await renewals("?size=2&page=2");
    expect(awardsOf(body)).toEqual([h.ids.A5, h.ids.A3]);
    expect(body.meta).toMatchObject({ page: 2, total: 4 });
  });

  it("finds a buyer's recurrence when its window is near", async () => {
    const { app } = buildTestApp({ db: t.db, now: () => new Date("2024-03-10T00:00:00Z") });
    const { body } = await getJson(app, "/v1/renewals?cpv=48&window_months=1", {
      "x-payment": await devToken(app, "GET /v1/renewals"),
    });
    const signals = (body.data as { signals: Signal[] }).signals;
    expect(signals.map((s) => [s.signal_type, s.buyer.id, s.confidence])).toEqual([
      ["recurrence", h.b2, "high"],
    ]);
  });

  it("reports the latest backtest in meta.backtest", async () => {
    await backtestRenewals({ db: t.db, log, asOf: ["2024-06-01"], now: new Date("2025-01-01T00:00:00Z") });
    const { body } = await renewals();
    const backtest = (body.meta as { backtest: Record<string, unknown> }).backtest;
    expect(backtest).toMatchObject({ run_at: "2025-01-01T00:00:00.000Z", as_of: ["2024-06-01"] });
    expect((backtest.table as unknown[]).length).toBe(9);
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
