import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { openLanes } from "../../src/db/lanes.ts";
import { getCheckpoint } from "../../src/db/queries/ingest-runs.ts";
import { ingestPlacsp, type PlacspIngestOptions } from "../../src/ingest/placsp/ingest-placsp.ts";
import { SHORT_TRANSACTION_ENTRIES } from "../../src/ingest/run-context.ts";
import type { HttpOptions } from "../../src/ingest/sources/http.ts";
import { writeSyntheticFeed } from "../../src/ingest/synthetic/feed.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { TEST_ENGINE } from "../helpers/engines.ts";
import { type FeedServer, PAGE2_PATH, PAGE3_PATH, startFeedServer } from "../helpers/feed-server.ts";
import { canonicalDump, ingestPage, LIFECYCLE, TWO_ENTRIES } from "../helpers/placsp.ts";
import { buildZip } from "../helpers/zip.ts";

const t = useTestDb();
let feed: FeedServer;
beforeEach(async () => {
  await truncateAll(t.db);
  feed = await startFeedServer();
});
afterEach(async () => {
  await feed.close();
});

const http: HttpOptions = {
  userAgent: "procurement-intel-test",
  timeoutMs: 5_000,
  retries: 2,
  baseDelayMs: 1,
  maxDelayMs: 5,
};
const log = createLogger("silent");

function run(db: Db, options: Partial<PlacspIngestOptions> & { source: string }) {
  return ingestPlacsp(
    { db, log, now: () => new Date() },
    { feed: "643", since: null, maxPages: null, batchSize: 500, http, ...options },
  );
}

/** The counts of a first walk of the three pages. */
const WHOLE_WALK = { pages: 3, entriesNew: 3, entriesUpdated: 1, entriesUnchanged: 9, errors: 0 };

/** What ingesting the two fixture files directly gives: the reference every route must reach. */
async function referenceDump(db: Db): Promise<string> {
  await truncateAll(db);
  await ingestPage(db, { file: LIFECYCLE });
  await ingestPage(db, { file: TWO_ENTRIES });
  const dump = await canonicalDump(db);
  await truncateAll(db);
  return dump;
}

async function newestStored(db: Db): Promise<string> {
  const { rows } = await db.query<{ newest: Date }>("SELECT max(upstream_updated) AS newest FROM tenders");
  return rows[0]?.newest.toISOString() ?? "none";
}

describe("walking a live feed", () => {
  it("follows relative and absolute next links through 3 pages and sets the checkpoint", async () => {
    const reference = await referenceDump(t.db);
    const summary = await run(t.db, { source: feed.headUrl });
    // Newest first: the head creates the two 2025-12 tenders and the lifecycle (its second-newest version, then
    // the newest updates it); the nine older versions on pages 2-3 are kept as versions but change nothing.
    expect(summary).toMatchObject(WHOLE_WALK);
    expect(await canonicalDump(t.db)).toBe(reference);
    expect(summary.checkpoint).toBe(await newestStored(t.db));
    expect([...feed.hits.values()]).toEqual([1, 1, 1]);
  });

  it("stops at the checkpoint on the next run", async () => {
    await run(t.db, { source: feed.headUrl });
    const again = await run(t.db, { source: feed.headUrl });
    expect(again).toMatchObject({ pages: 1, entriesNew: 0, entriesUpdated: 0, entriesUnchanged: 4 });
    expect(feed.hits.get(PAGE2_PATH)).toBe(1);
  });

  it("retries a page that fails with 500 and succeeds", async () => {
    const reference = await referenceDump(t.db);
    feed.failTimes.set(PAGE2_PATH, 1);
    const summary = await run(t.db, { source: feed.headUrl });
    expect(summary.pages).toBe(3);
    expect(feed.hits.get(PAGE2_PATH)).toBe(2);
    expect(await canonicalDump(t.db)).toBe(reference);
  });

  it("fails clearly after the last retry and keeps the checkpoint", async () => {
    feed.failTimes.set(PAGE3_PATH, 10);
    await expect(run(t.db, { source: feed.headUrl })).rejects.toThrow(
      new RegExp(`GET ${feed.base}${PAGE3_PATH} failed after 3 attempts: HTTP 500`),
    );
    expect(await getCheckpoint(t.db, "placsp:643")).toBeUndefined();
    const { rows } = await t.db.query("SELECT status, pages, message FROM ingest_runs");
    expect(rows).toEqual([
      { status: "failed", pages: 2, message: expect.stringMatching(/failed after 3 attempts/) },
    ]);
  });

  it("fails the run on a truncated page without moving the checkpoint", async () => {
    await run(t.db, { source: feed.headUrl });
    const before = await getCheckpoint(t.db, "placsp:643");
    // A newer head page appears; the page after it arrives cut in half.
    feed.truncate.add(PAGE2_PATH);
    await t.db.query("UPDATE ingest_checkpoints SET cursor_updated = '2025-01-01T00:00:00Z'");
    await expect(run(t.db, { source: feed.headUrl })).rejects.toThrow(/truncated|malformed/);
    expect((await getCheckpoint(t.db, "placsp:643"))?.cursorUpdated).toEqual(
      new Date("2025-01-01T00:00:00Z"),
    );
    expect(before?.cursorUpdated).not.toBeNull();
  });

  it("does not move an existing checkpoint when --max-pages cuts the walk short", async () => {
    await run(t.db, { source: feed.headUrl, maxPages: 2 });
    // First run: no checkpoint yet, so the cut-short walk sets one (older history comes from archives).
    const first = await getCheckpoint(t.db, "placsp:643");
    expect(first?.cursorUpdated?.toISOString()).toBe(await newestStored(t.db));
    await t.db.query("UPDATE ingest_checkpoints SET cursor_updated = '2025-01-01T00:00:00Z'");
    await run(t.db, { source: feed.headUrl, maxPages: 2 });
    expect((await getCheckpoint(t.db, "placsp:643"))?.cursorUpdated).toEqual(
      new Date("2025-01-01T00:00:00Z"),
    );
  });

  it("honours --since: older entries are skipped and the walk stops below it", async () => {
    const summary = await run(t.db, { source: feed.headUrl, since: "2025-07-15" });
    expect(summary.pages).toBe(2);
    expect(feed.hits.get(PAGE3_PATH)).toBeUndefined();
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM tender_versions WHERE upstream_updated < '2025-07-15'",
    );
    expect(rows[0]?.n).toBe(0);
  });
});

describe("archives and files", () => {
  it("reads a ZIP of the pages to the same database as the live walk", async () => {
    const reference = await referenceDump(t.db);
    const dir = mkdtempSync(join(tmpdir(), "pi-zip-"));
    const zip = join(dir, "licitacionesPerfilesContratanteCompleto3_2025.zip");
    writeFileSync(
      zip,
      buildZip(
        [...feed.pages.entries()].map(([path, xml]) => ({
          name: path.split("/").pop() ?? path,
          data: Buffer.from(xml),
        })),
      ),
    );
    const summary = await run(t.db, { source: zip, feed: null });
    expect(summary).toMatchObject({ pages: 3, feed: "643", errors: 0, checkpoint: null });
    expect(await canonicalDump(t.db)).toBe(reference);
  });

  it("reads a ZIP served over HTTP", async () => {
    const reference = await referenceDump(t.db);
    const zip = buildZip(
      [...feed.pages.entries()].map(([path, xml]) => ({ name: path.slice(1), data: Buffer.from(xml) })),
    );
    feed.pages.set("/archive_2025.zip", zip.toString("latin1"));
    const { createServer } = await import("node:http");
    const server = createServer((_, res) => res.end(zip));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      await run(t.db, {
        source: `http://127.0.0.1:${port}/licitacionesPerfilesContratanteCompleto3_2025.zip`,
      });
      expect(await canonicalDump(t.db)).toBe(reference);
    } finally {
      server.close();
    }
  });
});

describe("the ingest in the background lane (db/lanes.ts)", () => {
  it("reaches the same database while foreground statements never pause, waiting for its turns", async () => {
    const reference = await referenceDump(t.db);
    let waits = 0;
    const lanes = openLanes(t.db, {
      quietMs: 10,
      maxWaitMs: 20,
      sliceMs: 5,
      sleep: (ms) => {
        waits += 1;
        return delay(ms);
      },
    });
    let busy = true;
    let served = 0;
    const load = (async () => {
      while (busy) {
        await lanes.foreground.query("SELECT count(*) FROM search_rows");
        served += 1;
        // Requests arrive as I/O events; the next one follows at once (far within quietMs).
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // Counts the ingest's pauses between entries (the lane's own pacing still runs).
    let paced = 0;
    const background = {
      ...lanes.background,
      pace: async () => {
        paced += 1;
        await lanes.background.pace?.();
      },
    };
    const summary = await run(background, { source: feed.headUrl }).finally(() => {
      busy = false;
    });
    await load;
    expect(summary).toMatchObject(WHOLE_WALK);
    expect(await canonicalDump(t.db)).toBe(reference);
    expect(served).toBeGreaterThan(0);
    // Once per item read: the 13 entries of the three pages, the head page's tombstone, each page's feed header.
    expect(paced).toBe(17);
    // The embedded engine's background waited for the foreground; on PostgreSQL the lanes are one database.
    if (TEST_ENGINE === "pglite") {
      expect(waits).toBeGreaterThan(0);
    } else {
      expect(waits).toBe(0);
    }
  });

  it("commits batches of at most SHORT_TRANSACTION_ENTRIES entries when the view asks for short transactions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-short-batches-"));
    const written = await writeSyntheticFeed(dir, { entries: 250, seed: 29 });
    expect(written.pages).toBe(1);
    /** The entries each committed batch held, as the run's progress reports them after every commit. */
    const batches = async (db: Db): Promise<number[]> => {
      const totals: number[] = [];
      const progress = {
        report: (line: () => string) => totals.push(Number(/(\d+) entries/.exec(line())?.[1])),
      };
      const summary = await ingestPlacsp(
        { db, log, now: () => new Date(), progress },
        { source: written.files[0] ?? "", feed: "643", since: null, maxPages: null, batchSize: 500, http },
      );
      expect(summary.entriesNew + summary.entriesUpdated + summary.entriesUnchanged).toBe(250);
      await truncateAll(t.db);
      return totals.map((total, i) => total - (totals[i - 1] ?? 0));
    };
    expect(await batches(t.db)).toEqual([250]);
    const short: Db = {
      engine: t.db.engine,
      query: (sql, params) => t.db.query(sql, params),
      exec: (sql) => t.db.exec(sql),
      transaction: (fn) => t.db.transaction(fn),
      close: () => t.db.close(),
      shortTransactions: true,
    };
    const shortBatches = await batches(short);
    expect(shortBatches.reduce((a, b) => a + b, 0)).toBe(250);
    expect(shortBatches.length).toBeGreaterThanOrEqual(Math.ceil(250 / SHORT_TRANSACTION_ENTRIES));
    expect(Math.max(...shortBatches)).toBeLessThanOrEqual(SHORT_TRANSACTION_ENTRIES);
    rmSync(dir, { recursive: true, force: true });
  });
});
