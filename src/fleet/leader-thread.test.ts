import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDatabase } from "../../test/helpers/db.ts";
import { TEST_ENGINE } from "../../test/helpers/engines.ts";
import { waitFor } from "../../test/helpers/fleet.ts";
import { writeSettledSyntheticFeed } from "../../test/helpers/placsp.ts";
import { loadConfig } from "../config.ts";
import { createLogger, type Logger } from "../lib/logger.ts";
import { relayLogLine, startLeaderJobsOnThread } from "./leader-thread.ts";

/** A logger whose lines are kept, parsed. */
function capturingLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: "info", base: { service: "server" } },
    {
      write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  );
  return { log, lines };
}

describe("relayLogLine", () => {
  it("logs the thread's line again at its own level, with its fields and message, marked thread: ingest", () => {
    const { log, lines } = capturingLogger();
    const threadLines: string[] = [];
    const threadLog = createLogger("info", (line) => threadLines.push(line));
    threadLog.error({ feed: "643", reason: "upstream said 503" }, "scheduled placsp ingest failed");
    threadLog.warn({ source: "ted" }, "previous ingestion round still running");
    threadLog.info({ entriesNew: 80 }, "placsp ingest finished");
    threadLog.debug("not at this level");
    for (const line of threadLines) {
      relayLogLine(log, line);
    }
    expect(lines.map(({ time, pid, hostname, ...rest }) => rest)).toEqual([
      {
        level: 50,
        service: "server",
        thread: "ingest",
        feed: "643",
        reason: "upstream said 503",
        msg: "scheduled placsp ingest failed",
      },
      {
        level: 40,
        service: "server",
        thread: "ingest",
        source: "ted",
        msg: "previous ingestion round still running",
      },
      { level: 30, service: "server", thread: "ingest", entriesNew: 80, msg: "placsp ingest finished" },
    ]);
  });

  it("keeps a line that is not JSON, as a warning", () => {
    const { log, lines } = capturingLogger();
    relayLogLine(log, "Segmentation fault?");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      thread: "ingest",
      line: "Segmentation fault?",
      msg: "unreadable log line from the ingest thread",
    });
  });
});

/** A stand-in for leader-worker.ts that speaks its protocol: one line when started, stopped when told. */
const STAND_IN = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", (message) => {
  if (message.t === "start") {
    parentPort.postMessage({ t: "log", line: JSON.stringify({ level: 30, msg: "jobs started", role: message.config.INGEST_ROLE }) });
  } else {
    parentPort.postMessage({ t: "stopped" });
    parentPort.close();
  }
});`;
const dies = () => new Worker("process.exit(3)", { eval: true });
const standIn = () => new Worker(STAND_IN, { eval: true });

describe("startLeaderJobsOnThread's thread", () => {
  const config = loadConfig({ INGEST_SCHEDULE: "off" });

  it("is started again, after restartMs, when it dies under its jobs, and not once stopped", async () => {
    const { log, lines } = capturingLogger();
    const started: string[] = [];
    const jobs = startLeaderJobsOnThread(config, log, {
      restartMs: 50,
      startWorker: () => {
        started.push(started.length === 0 ? "dies" : "stand-in");
        return started.length === 1 ? dies() : standIn();
      },
    });
    await waitFor("the stand-in's line", () => lines.some((line) => line.msg === "jobs started"), 30_000);
    expect(lines.find((line) => line.msg === "jobs started")).toMatchObject({
      thread: "ingest",
      role: "auto",
    });
    expect(lines[0]).toMatchObject({
      level: 50,
      code: 3,
      restartInMs: 50,
      msg: "the ingest thread stopped unexpectedly; starting it again",
    });
    await jobs.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toEqual(["dies", "stand-in"]);
    expect(lines.filter((line) => line.level === 50)).toHaveLength(1);
  });

  it("is not started again when stopped while waiting to restart", async () => {
    const { log, lines } = capturingLogger();
    let starts = 0;
    const jobs = startLeaderJobsOnThread(config, log, {
      restartMs: 150,
      startWorker: () => {
        starts += 1;
        return dies();
      },
    });
    await waitFor("the first thread's death", () => lines.some((line) => line.code === 3), 30_000);
    await jobs.stop();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(starts).toBe(1);
  });
});

// The thread opens its own PostgreSQL pool; the embedded engine's one connection stays on the serving thread.
describe.runIf(TEST_ENGINE === "postgres")("startLeaderJobsOnThread (PostgreSQL)", () => {
  let database: TestDatabase | undefined;
  const importDir = mkdtempSync(join(tmpdir(), "pi-leader-thread-"));

  afterEach(async () => {
    await database?.destroy();
    rmSync(importDir, { recursive: true, force: true });
  });

  it("runs the leader's jobs on a thread with a pool of its own, relays their lines, and stops when told", async () => {
    database = await createTestDb();
    await writeSettledSyntheticFeed(importDir, { entries: 40, seed: 7 });
    const config = loadConfig({
      DATABASE_URL: database.url,
      INGEST_SCHEDULE: "off",
      IMPORT_DIR: importDir,
      IMPORT_SCHEDULE: "1s",
      RETENTION_SCHEDULE: "off",
    });
    const { log, lines } = capturingLogger();
    const jobs = startLeaderJobsOnThread(config, log);
    const isFinished = (line: Record<string, unknown>) => line.msg === "placsp ingest finished";
    await waitFor("the import's last line", () => lines.some(isFinished), 30_000);
    const finished = lines.find(isFinished) ?? {};
    expect(finished.thread).toBe("ingest");
    expect(finished.errors).toBe(0);
    const { rows } = await database.db.query<{ tenders: number }>(
      "SELECT count(*)::int AS tenders FROM tenders",
    );
    expect(rows[0]?.tenders).toBeGreaterThan(0);
    const db = database.db;
    const others = async () =>
      (
        await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
      ).rows[0]?.n;
    // The thread's pool holds connections of its own (this test's pool uses one at a time).
    expect(await others()).toBeGreaterThan(0);
    await jobs.stop();
    // Stopped: its jobs ended and its pool closed, and it was not started again.
    await waitFor("the thread's connections closed", async () => (await others()) === 0, 30_000);
    expect(
      lines.some((line) => line.msg === "the ingest thread stopped unexpectedly; starting it again"),
    ).toBe(false);
  }, 60_000);
});
