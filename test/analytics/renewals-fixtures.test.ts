import { beforeAll, describe, expect, it } from "vitest";
import { recomputeSignals } from "../../src/analytics/renewals/recompute.ts";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { AGGREGATED, ingestPage, LIFECYCLE, TWO_ENTRIES } from "../helpers/placsp.ts";
import { TED_FIXTURES } from "../helpers/ted-server.ts";

const t = useTestDb();
const log = createLogger("silent");
/** A clock before every crafted window ends: signal retention (90 days back from it) keeps them all. */
const KEEP_ALL = () => new Date("2020-01-01T00:00:00Z");

beforeAll(async () => {
  for (const file of [TWO_ENTRIES, LIFECYCLE, AGGREGATED]) {
    await ingestPage(t.db, { file });
  }
  await ingestTed(
    { db: t.db, log, now: () => new Date("2026-11-01T12:00:00Z") },
    {
      source: TED_FIXTURES,
      since: null,
      maxNotices: null,
      batchSize: 250,
      http: {
        userAgent: "procurement-intel-test",
        timeoutMs: 1000,
        retries: 0,
        baseDelayMs: 1,
        maxDelayMs: 5,
      },
      query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
      lookbackDays: 30,
      noticeIntervalMs: 0,
    },
  );
  // The ingest runs kept only signals near their own clock; these windows are years old: recompute them all
  // with a clock before them.
  await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
});

interface Row {
  signal_type: string;
  award_ref: string;
  window_start: string;
  window_end: string;
  confidence: string;
  end_date: string;
  end_date_source: string;
  extension: boolean;
}

const RTVE = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649";
const LIFECYCLE_REF = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996";
const FRA = "df45f4d1-2208-47cb-bc7a-9c7edcf8d2b8-01";

/*
 * Read from the notices (window = predicted +- 45 days, predicted = end - call lead, never before the award; no buyer
 * here published anything related in the year before its award: all low):
 * - RTVE 18526649: call published 2025-12-04, 3 lots awarded 2025-12-29 to MUXART, PlannedPeriod 24 DAY (0.79
 *   months), no start: end = award + round(0.79 * 30.4375) = 24 days = 2026-01-22. Lead 25 days: predicted
 *   2025-12-28, before the award, so the window starts at the award: 2025-12-29 .. 2026-02-11. Lot 1 is CPV
 *   42414100, lots 2 and 3 are 32000000: one signal per division (42: lot 1; 32: lots 2 and 3, basis lot 2).
 * - Lifecycle 17165996: first published 2025-04-23, awarded 2025-07-18 (lead 86), start 2025-08-13 (TenderResult
 *   StartDate) + 8 MON = 2026-04-13: predicted 2026-01-17, 2025-12-03 .. 2026-03-03.
 * - TED 191536-2024 (NLD): published end 2026-12-31; the award notice is the tender (lead 0): 2026-11-16 ..
 *   2027-02-14.
 * - TED SDK example (FRA): 2 lots of one notice, published end 2020-12-31, renewals announced (BT-54/57/58): one
 *   signal (basis LOT-0001), 2020-11-16 .. 2021-02-14.
 * Everything else has no derivable end (UNLIMITED, no duration) or no winner, and no class has two competed events.
 */
describe("renewal signals on the real fixtures", () => {
  it("derives every expiry the notices allow, and nothing else", async () => {
    const { rows } = await t.db.query<Row>(
      `SELECT signal_type, basis->>'award_ref' AS award_ref, window_start, window_end, confidence,
              basis->>'end_date' AS end_date, basis->>'end_date_source' AS end_date_source,
              basis->>'extension_text' IS NOT NULL AS extension
         FROM renewal_signals ORDER BY basis->>'award_ref'`,
    );
    const expiry = (
      award_ref: string,
      window: [string, string],
      confidence: string,
      end: string,
      source: string,
      extension = false,
    ) => ({
      signal_type: "duration_expiry",
      award_ref,
      window_start: window[0],
      window_end: window[1],
      confidence,
      end_date: end,
      end_date_source: source,
      extension,
    });
    expect(rows).toEqual([
      expiry(
        "191536-2024#lot=LOT-0000",
        ["2026-11-16", "2027-02-14"],
        "low",
        "2026-12-31",
        "published_end_date",
      ),
      expiry(
        `${FRA}#lot=LOT-0001`,
        ["2020-11-16", "2021-02-14"],
        "low",
        "2020-12-31",
        "published_end_date",
        true,
      ),
      expiry(LIFECYCLE_REF, ["2025-12-03", "2026-03-03"], "low", "2026-04-13", "start_plus_duration"),
      ...[1, 2].map((lot) =>
        expiry(
          `${RTVE}#lot=${lot}`,
          ["2025-12-29", "2026-02-11"],
          "low",
          "2026-01-22",
          "award_plus_duration",
        ),
      ),
    ]);
    const { rows: lots } = await t.db.query<{ lots: number }>(
      "SELECT (basis->>'lots')::int AS lots FROM renewal_signals ORDER BY basis->>'award_ref'",
    );
    expect(lots.map((r) => r.lots)).toEqual([1, 2, 1, 1, 2]);
  });

  it("gives the same table from an incremental step as from a full recompute", async () => {
    const dump = async () =>
      (await t.db.query("SELECT * FROM renewal_signals ORDER BY id")).rows.map((r) => JSON.stringify(r));
    const full = await dump();
    expect(full.length).toBe(5);
    // Every buyer touched (an UPDATE marks the buyers of the rows it writes), then the step after an ingest.
    await t.db.query("UPDATE awards SET cpv = cpv");
    const step = await recomputeSignals({ db: t.db, log, now: KEEP_ALL });
    expect(step.buyers).toBeGreaterThan(0);
    expect(await dump()).toEqual(full);
  });
});
