import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { type Scheduler, startIngestScheduler } from "../../src/ingest/scheduler.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { type FeedServer, startFeedServer } from "../helpers/feed-server.ts";
import { startTedServer, type TedServer } from "../helpers/ted-server.ts";

const t = useTestDb();
let feed: FeedServer;
let scheduler: Scheduler | null = null;
let ted: TedServer | null = null;

beforeEach(async () => {
  await truncateAll(t.db);
  feed = await startFeedServer();
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = null;
  await feed.close();
  await ted?.close();
  ted = null;
});

function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error("condition not met in time");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("scheduled ingestion", () => {
  it("polls the configured feed and ingests it", async () => {
    const { log } = memoryLog();
    const config = loadConfig({
      INGEST_SCHEDULE: "1s",
      INGEST_PLACSP_FEEDS: "643",
      PLACSP_FEED_643_URL: feed.headUrl,
      INGEST_TED_SCHEDULE: "off",
    });
    scheduler = startIngestScheduler({ db: t.db, log, now: () => new Date() }, config);
    await until(async () => {
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM ingest_runs WHERE status = 'succeeded'",
      );
      return (rows[0]?.n ?? 0) >= 1;
    });
    const { rows } = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tenders");
    expect(rows[0]?.n).toBe(3);
  });

  it("logs an unreachable upstream once per attempt, with the reason, and keeps trying", async () => {
    const { log, lines } = memoryLog();
    await feed.close();
    const config = loadConfig({
      INGEST_SCHEDULE: "1s",
      INGEST_PLACSP_FEEDS: "643",
      PLACSP_FEED_643_URL: feed.headUrl,
      INGEST_TED_SCHEDULE: "off",
      INGEST_HTTP_RETRIES: "0",
    });
    scheduler = startIngestScheduler({ db: t.db, log, now: () => new Date() }, config);
    const failures = () =>
      lines.filter((l) => l.msg === "scheduled placsp ingest failed; will retry at the next tick");
    await until(() => failures().length >= 2);
    expect(failures()[0]).toMatchObject({
      feed: "643",
      reason: expect.stringMatching(/ECONNREFUSED|failed after 1 attempt/),
    });
    feed = await startFeedServer(); // for afterEach
  });

  it("is off with INGEST_SCHEDULE=off", () => {
    const { log } = memoryLog();
    expect(
      startIngestScheduler({ db: t.db, log, now: () => new Date() }, loadConfig({ INGEST_SCHEDULE: "off" })),
    ).toBeNull();
  });
});

describe("scheduled TED ingestion", () => {
  /** PLACSP polls the local feed hourly (first after 5 s); TED every second. */
  function tedConfig(api: string, extra: Record<string, string> = {}) {
    return loadConfig({
      INGEST_SCHEDULE: "1h",
      INGEST_PLACSP_FEEDS: "643",
      PLACSP_FEED_643_URL: feed.headUrl,
      INGEST_TED_SCHEDULE: "1s",
      TED_API_URL: api,
      ...extra,
    });
  }

  it("queries the TED API on its own interval and ingests what it finds", async () => {
    const { log } = memoryLog();
    ted = await startTedServer([["611835-2024"]]);
    scheduler = startIngestScheduler({ db: t.db, log, now: () => new Date() }, tedConfig(ted.base));
    await until(async () => {
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM ingest_runs WHERE source = 'ted' AND status = 'succeeded'",
      );
      return (rows[0]?.n ?? 0) >= 1;
    });
    const { rows } = await t.db.query("SELECT source_ref FROM tenders WHERE source = 'ted'");
    expect(rows).toEqual([{ source_ref: "611835-2024" }]);
    expect(ted.searches[0]?.query).toMatch(
      /^buyer-country=ESP AND notice-type IN \(.*\) AND publication-date>=\d{8}$/,
    );
  });

  it("logs a failing TED API once per attempt and keeps trying, the PLACSP schedule unaffected", async () => {
    const { log, lines } = memoryLog();
    ted = await startTedServer([]);
    ted.failAllSearches = "503";
    scheduler = startIngestScheduler(
      { db: t.db, log, now: () => new Date() },
      tedConfig(ted.base, { INGEST_HTTP_RETRIES: "0" }),
    );
    const failures = () =>
      lines.filter((l) => l.msg === "scheduled ted ingest failed; will retry at the next tick");
    await until(() => failures().length >= 2);
    expect(failures()[0]).toMatchObject({ source: ted.base, reason: expect.stringMatching(/HTTP 503/) });
    expect(lines.filter((l) => String(l.msg).includes("placsp ingest failed"))).toEqual([]);
  });

  it("is off with INGEST_TED_SCHEDULE=off while PLACSP stays scheduled", () => {
    const { log, lines } = memoryLog();
    scheduler = startIngestScheduler(
      { db: t.db, log, now: () => new Date() },
      tedConfig("http://127.0.0.1:9", { INGEST_TED_SCHEDULE: "off" }),
    );
    expect(scheduler).not.toBeNull();
    expect(lines.map((l) => l.msg)).toEqual([
      "scheduled ingestion on",
      "scheduled TED ingestion is off (INGEST_TED_SCHEDULE=off)",
    ]);
  });
});
