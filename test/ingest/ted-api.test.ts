import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { getCheckpoint } from "../../src/db/queries/ingest-runs.ts";
import type { HttpOptions, RetryInfo } from "../../src/ingest/sources/http.ts";
import {
  apiSince,
  ingestTed,
  TED_API_CHECKPOINT,
  type TedIngestOptions,
  tedApiQuery,
} from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { canonicalDump } from "../helpers/placsp.ts";
import { noticeXml, startTedServer, type TedServer } from "../helpers/ted-server.ts";

const t = useTestDb();
let ted: TedServer;
let retries: RetryInfo[] = [];
/** Three pages linked by iteration tokens; every real published fixture once. */
const PAGES = [
  ["611835-2024", "607986-2024", "191536-2024"],
  ["615708-2023", "497181-2023", "402363-2023"],
  ["209416-2020", "153579-2020"],
];
const NOW = new Date("2024-11-01T12:00:00Z");

beforeEach(async () => {
  await truncateAll(t.db);
  ted = await startTedServer(PAGES.map((page) => [...page]));
  retries = [];
});
afterEach(async () => {
  await ted.close();
});

function http(): HttpOptions {
  return {
    userAgent: "procurement-intel-test",
    timeoutMs: 5_000,
    retries: 2,
    baseDelayMs: 100,
    maxDelayMs: 60_000,
    random: () => 0.5,
    // No test waits for real backoff: the waits are recorded instead.
    sleep: async () => undefined,
    onRetry: (info) => retries.push(info),
  };
}

function run(db: Db, options: Partial<TedIngestOptions> = {}) {
  return ingestTed(
    { db, log: createLogger("silent"), now: () => NOW },
    {
      source: ted.base,
      since: null,
      maxNotices: null,
      batchSize: 250,
      http: http(),
      query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
      lookbackDays: 30,
      noticeIntervalMs: 0,
      ...options,
    },
  );
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await t.db.query<T & Record<string, unknown>>(sql, params)).rows;
}

/** What ingesting these notices' XML from a directory gives. */
async function directoryDump(numbers: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "pi-ted-api-"));
  try {
    for (const number of numbers) {
      await writeFile(join(dir, `${number}.xml`), noticeXml(number) ?? "");
    }
    await run(t.db, { source: dir });
    return await canonicalDump(t.db);
  } finally {
    await truncateAll(t.db);
    await rm(dir, { recursive: true, force: true });
  }
}

const QUERY =
  "buyer-country=ESP AND notice-type IN (cn-standard cn-social cn-desg can-standard can-social can-desg " +
  "can-tran can-modif veat)";

describe("the TED Search API", () => {
  it("walks the pages through a 429 and a timed-out page, downloads each notice, sets the checkpoint", async () => {
    const stored = PAGES.flat().filter((n) => n !== "209416-2020");
    const reference = await directoryDump(stored);
    ted.failSearch.set(1, "429"); // the first page is rate-limited once
    ted.failSearch.set(3, "timedOut"); // the second page times out once
    ted.missing.add("209416-2020"); // its XML is gone: recorded, skipped

    const summary = await run(t.db);

    expect(summary).toMatchObject({
      kind: "api",
      query: `${QUERY} AND publication-date>=20241002`,
      since: "2024-10-02",
      pages: 3,
      notices: 8,
      noticesNew: 7,
      noticesUpdated: 0,
      errors: 1,
      checkpoint: "2024-10-09T22:00:00.000Z",
    });
    // Requests: 429, page 1, timed-out page 2, page 2, page 3; the same query each time, then each token.
    expect(ted.searches.map((s) => s.iterationNextToken ?? null)).toEqual([null, null, "t1", "t1", "t2"]);
    for (const search of ted.searches) {
      expect(search).toMatchObject({
        query: `${QUERY} AND publication-date>=20241002`,
        limit: 250,
        scope: "ALL",
        paginationMode: "ITERATION",
      });
    }
    // The 429's Retry-After (2 s) was honoured; the timed-out page was retried with backoff.
    expect(retries.map((r) => [r.delayMs, r.reason])).toEqual([
      [2000, expect.stringMatching(/429/)],
      [expect.any(Number), expect.stringMatching(/timedOut: true/)],
    ]);
    expect([...ted.downloads.keys()].sort()).toEqual([...PAGES.flat()].sort());
    expect(await rows("SELECT entry_ref, reason FROM ingest_errors")).toEqual([
      {
        entry_ref: "209416-2020",
        reason: expect.stringMatching(/\/en\/notice\/209416-2020\/xml failed .*HTTP 404/),
      },
    ]);
    expect(await canonicalDump(t.db)).toBe(reference);
    expect(await getCheckpoint(t.db, TED_API_CHECKPOINT)).toMatchObject({
      cursorUpdated: new Date("2024-10-09T22:00:00Z"),
      cursorRef: "611835-2024",
    });
    expect(await rows("SELECT source, feed, status, pages, errors FROM ingest_runs")).toEqual([
      { source: "ted", feed: "api", status: "succeeded", pages: 3, errors: 1 },
    ]);
  });

  it("asks the next run from the checkpoint's day minus one day of overlap", async () => {
    await run(t.db);
    const before = await canonicalDump(t.db);
    ted.searches.length = 0;
    const again = await run(t.db);
    // The newest notice was published on 2024-10-10 (Luxembourg): ask again from 2024-10-09.
    expect(again).toMatchObject({ since: "2024-10-09", noticesNew: 0, noticesUnchanged: 8 });
    expect(ted.searches[0]?.query).toBe(`${QUERY} AND publication-date>=20241009`);
    expect(await canonicalDump(t.db)).toBe(before);

    // --since narrows, never widens past the checkpoint.
    ted.searches.length = 0;
    await run(t.db, { since: "2024-10-20" });
    await run(t.db, { since: "2024-01-01" });
    const firstPages = ted.searches.filter((s) => s.iterationNextToken === undefined);
    expect(firstPages.map((s) => String(s.query).slice(-8))).toEqual(["20241020", "20241009"]);
  });

  it("fails the run and keeps the checkpoint when a search request keeps failing", async () => {
    await run(t.db);
    const checkpoint = await getCheckpoint(t.db, TED_API_CHECKPOINT);
    ted.downloads.clear();
    ted.failAllSearches = "503";
    await expect(run(t.db)).rejects.toThrow(/POST .*\/v3\/notices\/search failed after 3 attempts: HTTP 503/);
    expect(await getCheckpoint(t.db, TED_API_CHECKPOINT)).toEqual(checkpoint);
    expect(ted.downloads.size).toBe(0);
    const runs = await rows<{ status: string }>("SELECT status, message FROM ingest_runs ORDER BY id");
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "failed"]);

    // The same for a page that always times out, and for the WAF's empty 202.
    for (const failure of ["timedOut", "empty-202"] as const) {
      ted.failAllSearches = failure;
      await expect(run(t.db)).rejects.toThrow(/failed after 3 attempts/);
      expect(await getCheckpoint(t.db, TED_API_CHECKPOINT)).toEqual(checkpoint);
    }
  });

  it("fails the run when notice downloads keep failing, instead of moving past them", async () => {
    ted.pages = [Array.from({ length: 12 }, (_, i) => `${i + 1}-2024`)];
    await expect(run(t.db)).rejects.toThrow(/10 notice downloads failed in a row; the last: .*HTTP 404/);
    expect(await getCheckpoint(t.db, TED_API_CHECKPOINT)).toBeUndefined();
    expect(ted.downloads.size).toBe(10);
    expect(await rows("SELECT count(*)::int AS n FROM ingest_errors")).toEqual([{ n: 9 }]);
  });

  it("records a link that serves another notice instead of storing it under the wrong number", async () => {
    ted.pages = [["611835-2024", "607986-2024"]];
    ted.swapped.set("607986-2024", "191536-2024");
    const summary = await run(t.db);
    expect(summary).toMatchObject({ noticesNew: 1, errors: 1 });
    expect(await rows("SELECT entry_ref, reason FROM ingest_errors")).toEqual([
      { entry_ref: "607986-2024", reason: "the XML served for notice 607986-2024 is notice 191536-2024" },
    ]);
  });

  it("stops at --max-notices; only a first run sets the checkpoint from a cut-short run", async () => {
    const first = await run(t.db, { maxNotices: 2 });
    expect(first).toMatchObject({ notices: 2, noticesNew: 2, checkpoint: "2024-10-09T22:00:00.000Z" });
    expect(ted.searches[0]?.limit).toBe(2);
    await t.db.query("UPDATE ingest_checkpoints SET cursor_updated = '2024-10-05T00:00:00Z'");
    const second = await run(t.db, { maxNotices: 2 });
    expect(second.checkpoint).toBe("2024-10-05T00:00:00.000Z");
  });
});

describe("the query of a run", () => {
  it("adds the publication date to a configured override, before its SORT BY", () => {
    const override = "buyer-country=ESP AND form-type=result SORT BY publication-date DESC";
    expect(tedApiQuery({ apiQuery: override, cpvPrefixes: [], countries: [] }, "2024-01-31")).toBe(
      "(buyer-country=ESP AND form-type=result) AND publication-date>=20240131 SORT BY publication-date DESC",
    );
    expect(
      tedApiQuery({ apiQuery: null, cpvPrefixes: ["72", "48"], countries: ["ESP", "PRT"] }, "2024-01-31"),
    ).toBe(
      `buyer-country IN (ESP PRT) AND ${QUERY.replace("buyer-country=ESP AND ", "")} AND ` +
        "(classification-cpv=72* OR classification-cpv=48*) AND publication-date>=20240131",
    );
  });

  it("starts from the later of --since and the checkpoint's OJ day minus one, else the look-back", () => {
    const now = new Date("2024-11-01T12:00:00Z");
    // 2024-10-09T22:00Z is 2024-10-10 in Luxembourg.
    const cursor = new Date("2024-10-09T22:00:00Z");
    expect(apiSince(null, null, now, 30)).toBe("2024-10-02");
    expect(apiSince(null, cursor, now, 30)).toBe("2024-10-09");
    expect(apiSince("2024-10-20", cursor, now, 30)).toBe("2024-10-20");
    expect(apiSince("2024-01-01", cursor, now, 30)).toBe("2024-10-09");
    expect(apiSince("2024-01-01", null, now, 30)).toBe("2024-01-01");
  });
});
