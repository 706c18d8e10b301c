import { beforeAll, describe, expect, it } from "vitest";
import { backtestRenewals } from "../../src/analytics/renewals/backtest.ts";
import type { BacktestResult } from "../../src/domain/renewals/signal.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import { insertContract } from "../helpers/renewal-history.ts";

const t = useTestDb();
const log = createLogger("silent");

/*
 * As of 2022-06-01, with data until 2024-06-01 (the last publication: W's tender).
 *
 * X, division 72, awards 2020-01-15, 2021-01-15, 2022-01-15 (no durations: recurrence only):
 *   intervals 366 (2020 is a leap year), 365; median 365.5; predicted 2022-01-15 + 366 = 2023-01-16,
 *   margin round(91.375) = 91: window 2022-10-17 .. 2023-04-17, high.
 *   X publishes in division 72 on 2022-11-20: a hit, error |2022-11-20 - 2023-01-16| = 57 days.
 * Y, division 48: award 2021-06-01, start 2021-07-01, published end 2023-06-30: duration high,
 *   window 2022-12-30 .. 2023-08-30. Y never publishes again: a miss.
 * Z, division 50: award 2021-09-01, start 2021-10-01 + 36 months = 2024-10-01: duration medium,
 *   window 2024-04-01 .. 2024-12-01 ends after the data: unresolved.
 * Signals scored: 2, hits 1: 0.5.
 *
 * Naive rule (a buyer buys again in a division within 12 months of its last award):
 *   X: last 2022-01-15, until 2023-01-15; first tender on or after 2022-06-01 is 2022-11-20: hit.
 *   Y: last 2021-06-01, until 2022-06-01 (not over on the as-of date): no tender: miss.
 *   Z: last 2021-09-01, until 2022-09-01: no tender: miss.
 *   3 forecasts, 1 hit: 0.3333. Lift 0.5 / 0.3333 = 1.5.
 */
let result: BacktestResult;

beforeAll(async () => {
  const db = t.db;
  const company = await insertCompany(db, "Acme Sistemas SL");
  const [x, y, z, w] = await Promise.all(
    ["X", "Y", "Z", "W"].map((name) => insertBuyer(db, `Buyer ${name}`)),
  );
  for (const [i, date] of ["2020-01-15", "2021-01-15", "2022-01-15"].entries()) {
    const tender = await insertTender(db, {
      sourceRef: `X${i}`,
      buyerId: x,
      cpvAll: ["72000000"],
      publicationDate: `${Number(date.slice(0, 4)) - 1}-11-01`,
    });
    await insertContract(db, { tenderId: tender, winnerId: company, cpv: "72000000", awardDate: date });
  }
  await insertTender(db, {
    sourceRef: "X-next",
    buyerId: x,
    cpvAll: ["72500000"],
    publicationDate: "2022-11-20",
  });
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
    cpvAll: ["90000000"],
    publicationDate: "2024-06-01",
  });
  result = await backtestRenewals({ db, log, asOf: ["2022-06-01"], now: new Date("2024-07-01T00:00:00Z") });
});

const row = (type: string, confidence: string) =>
  result.table.find((r) => r.signal_type === type && r.confidence === confidence);

describe("renewal backtest", () => {
  it("scores the forecasts open at the as-of date against what was published after it", () => {
    expect(row("recurrence", "high")).toEqual({
      signal_type: "recurrence",
      confidence: "high",
      signals: 1,
      hits: 1,
      hit_rate: 1,
      median_abs_error_days: 57,
      unresolved: 0,
    });
    expect(row("duration_expiry", "high")).toMatchObject({
      signals: 1,
      hits: 0,
      hit_rate: 0,
      median_abs_error_days: null,
    });
    expect(row("duration_expiry", "medium")).toMatchObject({ signals: 0, hit_rate: null, unresolved: 1 });
    expect(result.overall).toEqual({ signals: 2, hits: 1, hit_rate: 0.5 });
  });

  it("puts the naive rule's base rate and the lift beside them", () => {
    expect(result.base_rate).toEqual({ forecasts: 3, hits: 1, hit_rate: 0.3333 });
    expect(result.lift).toBe(1.5);
  });

  it("states the corpus and the rules, and stores the run", async () => {
    expect(result.corpus).toEqual({
      awards: 5,
      tenders: 7,
      buyers: 4,
      data_until: "2024-06-01",
      synthetic_share: 0,
    });
    expect(result.as_of).toEqual(["2022-06-01"]);
    expect(result.per_as_of).toHaveLength(1);
    expect(Object.keys(result.rules)).toEqual(["hit", "error", "base_rate", "scored"]);
    const { rows } = await t.db.query<{ as_of: string[]; result: BacktestResult }>(
      "SELECT as_of::text[] AS as_of, result FROM renewal_backtests",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.result).toEqual(result);
  });

  it("gives the same table on a second run (deterministic)", async () => {
    const again = await backtestRenewals({
      db: t.db,
      log,
      asOf: ["2022-06-01"],
      now: new Date("2024-07-02T00:00:00Z"),
    });
    expect(again).toEqual(result);
  });
});
