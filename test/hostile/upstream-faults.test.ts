import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { getCheckpoint } from "../../src/db/queries/ingest-runs.ts";
import { ingestPlacsp } from "../../src/ingest/placsp/ingest-placsp.ts";
import type { HttpOptions, RetryInfo } from "../../src/ingest/sources/http.ts";
import { ingestTed, TED_API_CHECKPOINT } from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { FAULT_RETRY_AFTER_S, UPSTREAM_FAULTS, type UpstreamFault } from "../helpers/faults.ts";
import {
  type FeedServer,
  HEAD_PATH,
  PAGE2_PATH,
  PAGE3_PATH,
  pageHeader,
  startFeedServer,
} from "../helpers/feed-server.ts";
import { buildPage, canonicalDump, LIFECYCLE, splitFeed, TWO_ENTRIES } from "../helpers/placsp.ts";
import { startTedServer, type TedServer } from "../helpers/ted-server.ts";

/**
 * Upstream faults: the PLACSP feed and the TED Search API (and notice XML) answer with 500s and 503s, 429s
 * with Retry-After, hangs, dropped connections, stalls mid-body and bodies cut short (with and without the
 * transport noticing), and repeat or reorder their pages. Whatever the plan of faults (drawn by fast-check),
 * a run within the retry budget ends with exactly the database of a clean run (canonical dump of every table
 * ingestion writes); a run past the budget fails without moving its checkpoint, and the next run catches up
 * to the same database.
 */

/** Fault plans drawn per ingester; each run is a full ingest (hangs and stalls cost a real timeout each). */
/** A property makes hundreds of requests or several full ingest runs: more than the default 30 s on a loaded machine. */
const PROPERTY_TIMEOUT_MS = 180_000;
const RUNS = { placsp: 6, ted: 6 } as const;
/** Generous: on a loaded machine a sound answer must not time out (hangs and stalls each cost this much). */
const TIMEOUT_MS = 800;
const RETRIES = 4;

const t = useTestDb();
const log = createLogger("silent");
let retries: RetryInfo[] = [];

function http(): HttpOptions {
  return {
    userAgent: "procurement-intel-test",
    timeoutMs: TIMEOUT_MS,
    bodyIdleTimeoutMs: TIMEOUT_MS,
    retries: RETRIES,
    baseDelayMs: 100,
    maxDelayMs: 60_000,
    random: () => 0.5,
    // Waits are recorded, not slept: a 429's Retry-After shows in the log without costing 3 s.
    sleep: async () => undefined,
    onRetry: (info) => retries.push(info),
  };
}

/** One fault; those that cost a real timeout (hang, stall) are drawn less often. */
const fault: fc.Arbitrary<UpstreamFault> = fc.oneof(
  { arbitrary: fc.constantFrom(...UPSTREAM_FAULTS.filter((f) => f !== "hang" && f !== "stall")), weight: 4 },
  { arbitrary: fc.constantFrom<UpstreamFault>("hang", "stall"), weight: 1 },
);
/** At most two faults per request target: always within the budget of RETRIES retries. */
const faultPlan = fc.array(fault, { maxLength: 2 });

/** Each 429 served was waited out for its Retry-After (capped at maxDelayMs, far above it here). */
function expectRetryAfterHonoured(faults: UpstreamFault[]): void {
  const served429 = faults.filter((f) => f === "429").length;
  const waited = retries.filter((r) => /HTTP 429/.test(r.reason));
  expect(waited).toHaveLength(served429);
  for (const retry of waited) {
    expect(retry.delayMs).toBe(FAULT_RETRY_AFTER_S * 1000);
  }
}

describe("PLACSP feed faults", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  let feed: FeedServer;
  let reference: string;
  beforeEach(async () => {
    await truncateAll(t.db);
    feed = await startFeedServer();
    retries = [];
  });
  afterEach(async () => {
    await feed.close();
  });

  function run(db: Db) {
    return ingestPlacsp(
      { db, log, now: () => new Date() },
      { source: feed.headUrl, feed: "643", since: null, maxPages: null, batchSize: 3, http: http() },
    );
  }

  /** The clean run's database (computed once: the feed's pages are the same in every test). */
  let clean: string | undefined;
  async function cleanDump(): Promise<string> {
    if (clean === undefined) {
      await truncateAll(t.db);
      await run(t.db);
      clean = await canonicalDump(t.db);
      await truncateAll(t.db);
    }
    return clean;
  }

  it("ends with the clean run's database whatever faults each page meets within the budget", async () => {
    reference = await cleanDump();
    const paths = [HEAD_PATH, PAGE2_PATH, PAGE3_PATH];
    await fc.assert(
      fc.asyncProperty(fc.tuple(faultPlan, faultPlan, faultPlan), async (plans) => {
        await truncateAll(t.db);
        retries = [];
        feed.hits.clear();
        paths.forEach((path, i) => {
          feed.faults.set(path, [...(plans[i] ?? [])]);
        });
        const summary = await run(t.db);
        expect(summary.pages).toBe(3);
        expect(await canonicalDump(t.db)).toBe(reference);
        // Every fault was met (a slow machine may add a retry of its own), then the page was served.
        paths.forEach((path, i) => {
          expect(feed.faults.get(path), path).toEqual([]);
          expect(feed.hits.get(path), path).toBeGreaterThanOrEqual((plans[i]?.length ?? 0) + 1);
        });
        expectRetryAfterHonoured(plans.flat());
      }),
      { numRuns: RUNS.placsp },
    );
  });

  it("fails past the budget without moving the checkpoint; the next run catches up", async () => {
    reference = await cleanDump();
    feed.faults.set(PAGE2_PATH, Array(RETRIES + 1).fill("truncate-body"));
    await expect(run(t.db)).rejects.toThrow(/truncated or malformed/);
    expect(await getCheckpoint(t.db, "placsp:643")).toBeUndefined();
    const { rows } = await t.db.query<{ status: string }>("SELECT status FROM ingest_runs");
    expect(rows).toEqual([{ status: "failed" }]);
    await run(t.db);
    expect(await canonicalDump(t.db)).toBe(reference);
  });

  it("ends with the clean run's database when pages repeat entries or come in another order", async () => {
    reference = await cleanDump();
    const lifecycle = splitFeed(LIFECYCLE);
    const recent = splitFeed(TWO_ENTRIES);
    const e = lifecycle.entries;
    const headHeader = pageHeader(
      lifecycle.header,
      `<link rel="next" href="${PAGE2_PATH.split("/").pop()}"/>`,
    );
    const page2Header = pageHeader(lifecycle.header, `<link rel="next" href="${feed.base}${PAGE3_PATH}"/>`);
    const lastHeader = pageHeader(lifecycle.header, "");
    const layouts: [string[], string[], string[]][] = [
      // The feed moved while it was walked: entries of a newer page show up again on the next one.
      [
        [...recent.tombstones, ...recent.entries, ...e.slice(0, 2)],
        [...e.slice(0, 2), ...e.slice(2, 6), ...(recent.entries.slice(0, 1) ?? [])],
        [...e.slice(5)],
      ],
      // Versions out of order: the oldest on the head, the newest on the last page.
      [
        [...e.slice(6)],
        [...e.slice(2, 6), ...recent.tombstones],
        [...recent.entries, ...e.slice(0, 2)].reverse(),
      ],
    ];
    for (const [head, page2, page3] of layouts) {
      await truncateAll(t.db);
      feed.pages.set(HEAD_PATH, buildPage(headHeader, head));
      feed.pages.set(PAGE2_PATH, buildPage(page2Header, page2));
      feed.pages.set(PAGE3_PATH, buildPage(lastHeader, page3));
      await run(t.db);
      expect(await canonicalDump(t.db)).toBe(reference);
    }
  });
});

describe("TED Search API faults", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  /** Three pages linked by iteration tokens; every real published fixture once. */
  const PAGES = [
    ["611835-2024", "607986-2024", "191536-2024"],
    ["615708-2023", "497181-2023", "402363-2023"],
    ["209416-2020", "153579-2020"],
  ];
  const NOW = new Date("2024-11-01T12:00:00Z");
  let ted: TedServer;
  beforeEach(async () => {
    await truncateAll(t.db);
    retries = [];
  });
  afterEach(async () => {
    await ted?.close();
  });

  function run(db: Db) {
    return ingestTed(
      { db, log, now: () => NOW },
      {
        source: ted.base,
        since: null,
        maxNotices: null,
        batchSize: 3,
        http: http(),
        query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
        lookbackDays: 30,
        noticeIntervalMs: 0,
      },
    );
  }

  /** The clean run's database (computed once: every test serves the same notices). */
  let clean: string | undefined;
  async function cleanDump(pages: string[][]): Promise<string> {
    if (clean === undefined) {
      ted = await startTedServer(pages.map((page) => [...page]));
      await truncateAll(t.db);
      await run(t.db);
      clean = await canonicalDump(t.db);
      await truncateAll(t.db);
      await ted.close();
    }
    return clean;
  }

  it("ends with the clean run's database whatever faults searches and downloads meet within the budget", async () => {
    const reference = await cleanDump(PAGES);
    ted = await startTedServer(PAGES.map((page) => [...page]));
    const numbers = PAGES.flat();
    const plan = fc.record({
      // Faults of the search requests, in order (each spoils the page it would have served).
      search: fc.array(fault, { maxLength: 3 }),
      notices: fc.array(fc.tuple(fc.constantFrom(...numbers), faultPlan), { maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ search, notices }) => {
        await truncateAll(t.db);
        retries = [];
        ted.searchFaults.splice(0, Infinity, ...search);
        ted.noticeFaults.clear();
        ted.downloads.clear();
        for (const [number, faults] of notices) {
          ted.noticeFaults.set(number, [...(ted.noticeFaults.get(number) ?? []), ...faults].slice(0, 2));
        }
        const plannedPerNotice = new Map(
          [...ted.noticeFaults].map(([number, faults]) => [number, faults.length]),
        );
        const planned = [...ted.noticeFaults.values()].flat();
        const summary = await run(t.db);
        expect(summary).toMatchObject({ notices: numbers.length, errors: 0 });
        expect(await canonicalDump(t.db)).toBe(reference);
        expect(ted.searchFaults).toEqual([]);
        for (const number of numbers) {
          expect(ted.noticeFaults.get(number) ?? [], number).toEqual([]);
          expect(ted.downloads.get(number), number).toBeGreaterThanOrEqual(
            1 + (plannedPerNotice.get(number) ?? 0),
          );
        }
        expectRetryAfterHonoured([...search, ...planned]);
      }),
      { numRuns: RUNS.ted },
    );
  });

  it("fails past the budget without moving the checkpoint; the next run catches up", async () => {
    const reference = await cleanDump(PAGES);
    ted = await startTedServer(PAGES.map((page) => [...page]));
    // The second page's search is cut short on every attempt.
    ted.searchFaults.splice(0, Infinity, "503", ...Array<UpstreamFault>(RETRIES + 1).fill("truncate-body"));
    await expect(run(t.db)).rejects.toThrow(/JSON response ends early/);
    expect(await getCheckpoint(t.db, TED_API_CHECKPOINT)).toBeUndefined();
    await run(t.db);
    expect(await canonicalDump(t.db)).toBe(reference);
  });

  it("ends with the clean run's database when search pages repeat or come in another order", async () => {
    const reference = await cleanDump(PAGES);
    const [a = [], b = [], c = []] = PAGES;
    const layouts: string[][][] = [
      [a, a, b, c], // a page served twice
      [c, b, a], // pages in reverse order
      [
        [...a, b[0] ?? ""],
        [...b, c[0] ?? ""],
        [...c, a[0] ?? ""],
      ], // hits repeated across pages
    ];
    for (const pages of layouts) {
      await truncateAll(t.db);
      ted = await startTedServer(pages.map((page) => [...page]));
      await run(t.db);
      expect(await canonicalDump(t.db)).toBe(reference);
      await ted.close();
    }
  });
});
