import { beforeAll, describe, expect, it } from "vitest";
import { rescoreForecasts } from "../../scripts/rescore-forecasts.mjs";
import {
  backtestRenewals,
  type ScoredForecast,
  skillInterval,
  windowProbability,
} from "../../src/analytics/renewals/backtest.ts";
import { sourceCoverageEnds } from "../../src/db/queries/renewals.ts";
import type { BacktestResult } from "../../src/domain/renewals/signal.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import { insertContract } from "../helpers/renewal-history.ts";

const t = useTestDb();
const log = createLogger("silent");

/*
 * As of 2022-06-01, coverage end 2023-12-31 (given).
 *
 * X, class 7200 (recurrence): competed tenders published 2020-11-01 and 2021-11-01 (awarded 2021-01-15 and
 *   2022-01-15). From 2021-11-01: predicted 2022-11-01, window 2022-10-02 .. 2022-12-01, medium. X publishes
 *   class 7200 tenders on 2022-11-20 (a hit) and 2023-06-01.
 *   Scored window 2022-10-02 .. 2022-12-01: 61 days. A random start in [2022-06-01, 2023-11-01] (519 days) holds
 *   2022-11-20 from 2022-09-21 to 2022-11-20 (61 starts) and 2023-06-01 from 2023-04-02 to 2023-06-01 (61):
 *   122 / 519. From the as-of date: 2022-06-01 .. 2022-07-31, no tender: not a hit.
 * Y, class 4800 (expiry): published 2021-04-01, awarded 2021-06-01 (lead 61), start 2021-07-01, published end
 *   2023-06-30: predicted 2023-04-30, window 2023-03-16 .. 2023-06-14, low (nothing related in the year before).
 *   Y never publishes again: a miss, and no random window could hit: baseline 0.
 * Z, class 5000 (expiry): published 2021-07-01, awarded 2021-09-01 (lead 62), start 2021-10-01, 36 months:
 *   end 2024-10-01, window ends after the coverage end: unresolved (low).
 * W, class 5500 (expiry): W0 (class 5500, published 2020-06-01, no award) is related, in the year before the
 *   award: high. Published 2021-01-01, awarded 2021-03-01 (lead 59), start 2021-03-01, 24 months: end
 *   2023-03-01, predicted 2023-01-01, window 2022-11-17 .. 2023-02-15 (91 days). W publishes class 5500 on
 *   2022-07-01 and 2023-02-10 (a hit). Random starts in [2022-06-01, 2023-10-02] (489 days) hold 2022-07-01 from
 *   2022-06-01 (clipped) to 2022-07-01 (31) and 2023-02-10 from 2022-11-12 to 2023-02-10 (91): 122 / 489. From the
 *   as-of date: 2022-06-01 .. 2022-08-30 holds 2022-07-01.
 */
let result: BacktestResult;
const forecasts: ScoredForecast[] = [];
const AS_OF = "2022-06-01";
const COVERAGE_END = "2023-12-31";

beforeAll(async () => {
  const db = t.db;
  const company = await insertCompany(db, "Acme Sistemas SL");
  const [x, y, z, w] = await Promise.all(
    ["X", "Y", "Z", "W"].map((name) => insertBuyer(db, `Buyer ${name}`)),
  );
  for (const [i, [published, awarded]] of [
    ["2020-11-01", "2021-01-15"],
    ["2021-11-01", "2022-01-15"],
  ].entries()) {
    const tender = await insertTender(db, {
      sourceRef: `X${i}`,
      buyerId: x,
      cpvAll: ["72000000"],
      publicationDate: published,
    });
    await insertContract(db, { tenderId: tender, winnerId: company, cpv: "72000000", awardDate: awarded });
  }
  for (const [ref, date] of [
    ["X-next", "2022-11-20"],
    ["X-later", "2023-06-01"],
  ] as const) {
    await insertTender(db, { sourceRef: ref, buyerId: x, cpvAll: ["72000000"], publicationDate: date });
  }
  const ty = await insertTender(db, {
    sourceRef: "Y0",
    buyerId: y,
    cpvAll: ["48000000"],
    publicationDate: "2021-04-01",
  });
  await insertContract(db, {
    tenderId: ty,
    winnerId: company,
    cpv: "48000000",
    awardDate: "2021-06-01",
    startDate: "2021-07-01",
    endDate: "2023-06-30",
  });
  const tz = await insertTender(db, {
    sourceRef: "Z0",
    buyerId: z,
    cpvAll: ["50000000"],
    publicationDate: "2021-07-01",
  });
  await insertContract(db, {
    tenderId: tz,
    winnerId: company,
    cpv: "50000000",
    awardDate: "2021-09-01",
    startDate: "2021-10-01",
    durationMonths: 36,
  });
  await insertTender(db, {
    sourceRef: "W0",
    buyerId: w,
    cpvAll: ["55000000"],
    publicationDate: "2020-06-01",
  });
  const tw = await insertTender(db, {
    sourceRef: "W1",
    buyerId: w,
    cpvAll: ["55000000"],
    publicationDate: "2021-01-01",
  });
  await insertContract(db, {
    tenderId: tw,
    winnerId: company,
    cpv: "55000000",
    awardDate: "2021-03-01",
    startDate: "2021-03-01",
    durationMonths: 24,
  });
  for (const [ref, date] of [
    ["W-early", "2022-07-01"],
    ["W-next", "2023-02-10"],
  ] as const) {
    await insertTender(db, { sourceRef: ref, buyerId: w, cpvAll: ["55000000"], publicationDate: date });
  }
  result = await backtestRenewals({
    db,
    log,
    asOf: [AS_OF],
    coverageEnd: COVERAGE_END,
    now: new Date("2024-07-01T00:00:00Z"),
    onForecast: (forecast) => forecasts.push(forecast),
  });
});

const row = (type: string, confidence: string) =>
  result.rows.find((r) => r.signal_type === type && r.confidence === confidence);

describe("renewal backtest", () => {
  it("scores each open forecast against a window of the same length placed at random, exactly", () => {
    expect(row("recurrence", "medium")).toMatchObject({
      basis: "competed",
      scored: 1,
      hits: 1,
      hit_rate: 1,
      baseline_rate: Math.round((122 / 519) * 10_000) / 10_000,
      skill: Math.round((1 - 122 / 519) * 10_000) / 10_000,
      skill_ci95: null, // one buyer: no interval
      from_as_of_rate: 0,
      division_hit_rate: 1,
      buyers: 1,
      unresolved: 0,
    });
    expect(row("duration_expiry", "high")).toMatchObject({
      scored: 1,
      hits: 1,
      baseline_rate: Math.round((122 / 489) * 10_000) / 10_000,
      from_as_of_rate: 1,
    });
    expect(row("duration_expiry", "low")).toMatchObject({
      scored: 1,
      hits: 0,
      hit_rate: 0,
      baseline_rate: 0,
      skill: 0,
      unresolved: 1,
    });
    expect(row("framework_expiry", "high")).toMatchObject({ scored: 0, hit_rate: null, skill: null });
  });

  it("sums every forecast into the overall row, with a bootstrap interval over buyers", () => {
    const all = row("all", "all");
    const baseline = 122 / 519 + 122 / 489;
    expect(all).toMatchObject({
      scored: 3,
      hits: 2,
      baseline_rate: Math.round((baseline / 3) * 10_000) / 10_000,
      skill: Math.round(((2 - baseline) / 3) * 10_000) / 10_000,
      buyers: 3,
      unresolved: 1,
    });
    const [lo, hi] = all?.skill_ci95 ?? [Number.NaN, Number.NaN];
    expect(lo).toBeLessThanOrEqual(all?.skill as number);
    expect(hi).toBeGreaterThanOrEqual(all?.skill as number);
    expect(lo).toBeGreaterThanOrEqual(-1);
    expect(hi).toBeLessThanOrEqual(1);
  });

  it("hands every scored forecast over, with what re-scoring it needs", () => {
    expect(forecasts.map((f) => [f.signal_type, f.confidence, f.hit, f.hit_refs]).sort()).toEqual(
      [
        ["duration_expiry", "high", true, ["W-next"]],
        ["duration_expiry", "low", false, []],
        ["recurrence", "medium", true, ["X-next"]],
      ].sort(),
    );
    const w = forecasts.find((f) => f.confidence === "high");
    expect(w).toMatchObject({
      as_of: AS_OF,
      window_start: "2022-11-17",
      window_end: "2023-02-15",
      cpv: "55000000",
      basis_tender_refs: ["W1"],
    });
    expect(w?.basis_refs).toHaveLength(1);
  });

  it("gives the same hits when an independent script re-scores the forecasts from the database", async () => {
    const rescored = await rescoreForecasts(forecasts, (sql, params) =>
      t.db.query<Record<string, unknown>>(sql, params).then((r) => r.rows),
    );
    expect(rescored.map((r) => r.hit)).toEqual(forecasts.map((f) => f.hit));
    expect(rescored.every((r) => r.agrees)).toBe(true);
  });

  it("states the coverage end, the corpus and the rules, and stores the run", async () => {
    expect(result).toMatchObject({
      version: 2,
      as_of: [AS_OF],
      coverage_end: COVERAGE_END,
      coverage_end_from: "argument",
      coverage_end_by_source: { placsp: "2023-06-30" },
      corpus: { awards: 5, tenders: 10, buyers: 4, synthetic_share: 0 },
    });
    expect(result.per_as_of).toHaveLength(1);
    expect(Object.keys(result.rules)).toEqual([
      "hit",
      "related",
      "baseline",
      "from_as_of",
      "scored",
      "coverage",
      "interval",
    ]);
    const { rows } = await t.db.query<{ as_of: string[]; result: BacktestResult }>(
      "SELECT as_of::text[] AS as_of, result FROM renewal_backtests",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.result).toEqual(result);
  });

  it("gives the same result on a second run (deterministic)", async () => {
    const again = await backtestRenewals({
      db: t.db,
      log,
      asOf: [AS_OF],
      coverageEnd: COVERAGE_END,
      now: new Date("2024-07-02T00:00:00Z"),
    });
    expect(again).toEqual(result);
  });
});

describe("the coverage end derived from the data", () => {
  it("is the end of the last month with at least a quarter of a typical month's tenders: a stray notice does not move it", async () => {
    const buyer = await insertBuyer(t.db, "Buyer V");
    // 8 tenders a month from 2022-01 to 2023-06 (a typical month: the median month has 8), the months above
    // with a single notice, and one stray notice in 2030.
    for (let m = 0; m < 18; m++) {
      const month = `${2022 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, "0")}`;
      for (let i = 0; i < 8; i++) {
        await insertTender(t.db, {
          sourceRef: `V-${month}-${i}`,
          buyerId: buyer,
          cpvAll: ["79000000"],
          publicationDate: `${month}-1${i}`,
        });
      }
    }
    await insertTender(t.db, { sourceRef: "V-stray", buyerId: buyer, publicationDate: "2030-01-15" });
    expect(await sourceCoverageEnds(t.db)).toEqual({ placsp: "2023-06-30" });
  });
});

describe("windowProbability", () => {
  it("counts the starts whose window holds a date, merging overlaps and clipping at both ends", () => {
    // Starts 2024-01-01 .. 2024-01-08 (a 3-day window until 2024-01-10): 8 positions.
    expect(windowProbability([], "2024-01-01", "2024-01-10", 3)).toBe(0);
    // 2024-01-05 is held by starts 01-03 .. 01-05.
    expect(windowProbability(["2024-01-05"], "2024-01-01", "2024-01-10", 3)).toBe(3 / 8);
    // 01-05 and 01-06 overlap: starts 01-03 .. 01-06.
    expect(windowProbability(["2024-01-05", "2024-01-06"], "2024-01-01", "2024-01-10", 3)).toBe(4 / 8);
    // 01-01 only by start 01-01; 01-10 only by start 01-08.
    expect(windowProbability(["2024-01-01", "2024-01-10"], "2024-01-01", "2024-01-10", 3)).toBe(2 / 8);
    // A window as long as the span has one position.
    expect(windowProbability(["2024-01-04"], "2024-01-01", "2024-01-10", 10)).toBe(1);
  });
});

describe("skillInterval", () => {
  const forecast = (buyer: number, hit: boolean, baseline: number) =>
    ({ buyer_id: buyer, hit, baseline_probability: baseline }) as ScoredForecast;

  it("is null with one buyer and a single point when every buyer has the same skill", () => {
    expect(skillInterval([forecast(1, true, 0.5)])).toBeNull();
    expect(skillInterval([forecast(1, true, 0.5), forecast(2, true, 0.5)])).toEqual([0.5, 0.5]);
  });

  it("spans the buyers' skills when they differ, the same bytes every time", () => {
    const list = [
      forecast(1, true, 0),
      forecast(2, false, 0),
      forecast(3, true, 0.5),
      forecast(3, false, 0.5),
    ];
    const interval = skillInterval(list);
    expect(interval).toEqual(skillInterval(list));
    const [lo, hi] = interval ?? [0, 0];
    expect(lo).toBeLessThan(hi);
    expect(lo).toBeGreaterThanOrEqual(-0.5);
    expect(hi).toBeLessThanOrEqual(1);
  });
});
