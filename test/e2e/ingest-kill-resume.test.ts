import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDatabase } from "../helpers/db.ts";
import { type FeedServer, PAGE3_PATH, startFeedServer } from "../helpers/feed-server.ts";
import { canonicalDump, ingestPage, LIFECYCLE, TWO_ENTRIES } from "../helpers/placsp.ts";
import { runEntry, spawnEntry } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

/**
 * `npm run cli -- ingest placsp` killed with SIGKILL while it waits for the last page, then run again: the
 * database must end exactly as after one uninterrupted run.
 */
describe("a PLACSP run killed mid-walk and started again", () => {
  let feed: FeedServer;
  let database: ServerDatabase;
  let reference: TestDatabase;

  beforeAll(async () => {
    feed = await startFeedServer();
    database = await createServerDatabase();
    reference = await createTestDb();
  });
  afterAll(async () => {
    await feed?.close();
    await database?.destroy();
    await reference?.destroy();
  });

  it("ends with the same database as an uninterrupted run", async () => {
    await ingestPage(reference.db, { file: LIFECYCLE });
    await ingestPage(reference.db, { file: TWO_ENTRIES });
    const expected = await canonicalDump(reference.db);

    await database.withDb(async () => {}); // migrated before the CLI starts
    const env = {
      ...database.env,
      LOG_LEVEL: "warn",
      INGEST_HTTP_RETRIES: "0",
      INGEST_HTTP_TIMEOUT_MS: "60000",
    };
    feed.hang.add(PAGE3_PATH);
    const first = spawnEntry(
      "src/cli.ts",
      ["ingest", "placsp", "--source", feed.headUrl, "--feed", "643"],
      env,
    );
    const deadline = Date.now() + 60_000;
    while (!feed.hits.has(PAGE3_PATH) && Date.now() < deadline && first.child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(feed.hits.get(PAGE3_PATH), first.stderr()).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;

    // Two pages were committed before the kill; no checkpoint yet.
    const partial = await database.withDb(async (db) => {
      const { rows } = await db.query<{ pages: number; status: string }>(
        "SELECT pages, status FROM ingest_runs",
      );
      const checkpoints = await db.query("SELECT * FROM ingest_checkpoints");
      return { runs: rows, checkpoints: checkpoints.rows.length };
    });
    expect(partial).toEqual({ runs: [{ pages: 2, status: "running" }], checkpoints: 0 });

    feed.hang.delete(PAGE3_PATH);
    const second = await runEntry(
      "src/cli.ts",
      ["ingest", "placsp", "--source", feed.headUrl, "--feed", "643"],
      env,
    );
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ pages: 3, errors: 0 });

    expect(await database.withDb(canonicalDump)).toBe(expected);
    // Two CLI processes start one after the other and the first may wait up to 60 s for its page: the default
    // 30 s budget was hit on a loaded machine while every step was still progressing.
  }, 180_000);
});
