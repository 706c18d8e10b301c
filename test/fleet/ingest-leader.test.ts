import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import {
  createIngestLeadership,
  type IngestLeadership,
  type IngestRole,
  leaderRetryMs,
  pgLeaderLock,
  soleProcessLock,
} from "../../src/fleet/ingest-leader.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { TEST_ENGINE } from "../helpers/engines.ts";

/**
 * The ingest-leader election in one process, several "processes" being several leaderships, each with its
 * own dedicated session (as separate server processes would have). The whole fleet, over HTTP and with a
 * SIGKILL, is test/e2e/fleet.test.ts.
 */

const t = useTestDb();
const log = createLogger("silent");
const RETRY_MS = 200;

interface Member {
  name: string;
  leadership: IngestLeadership;
  /** Jobs started and stopped, in order. */
  events: string[];
  leading(): boolean;
}

const members: Member[] = [];

afterEach(async () => {
  await Promise.all(members.splice(0).map((m) => m.leadership.stop()));
});

function member(name: string, role: IngestRole, lock = pgLeaderLock(t.handle.url ?? "", log)): Member {
  const events: string[] = [];
  const leadership = createIngestLeadership({
    role,
    lock,
    retryMs: RETRY_MS,
    log,
    now: () => new Date(),
    startJobs() {
      events.push("start");
      return {
        async stop() {
          events.push("stop");
        },
      };
    },
  });
  const m = { name, leadership, events, leading: () => leadership.status().leading };
  members.push(m);
  return m;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

const leaders = (ms: Member[]) => ms.filter((m) => m.leading()).map((m) => m.name);

describe("leaderRetryMs", () => {
  it("is the shortest enabled schedule, between 1 s and 60 s", () => {
    expect(leaderRetryMs(loadConfig({}))).toBe(10_000); // IMPORT_SCHEDULE=10s
    expect(leaderRetryMs(loadConfig({ IMPORT_SCHEDULE: "off" }))).toBe(60_000);
    expect(leaderRetryMs(loadConfig({ IMPORT_SCHEDULE: "off", INGEST_SCHEDULE: "30s" }))).toBe(30_000);
    // TED follows INGEST_SCHEDULE: with that off, TED is off too.
    expect(
      leaderRetryMs(
        loadConfig({ IMPORT_SCHEDULE: "off", INGEST_SCHEDULE: "off", INGEST_TED_SCHEDULE: "5s" }),
      ),
    ).toBe(60_000);
    expect(leaderRetryMs(loadConfig({ IMPORT_SCHEDULE: "1s" }))).toBe(1_000);
  });
});

describe("on PGlite (one process per data directory)", () => {
  it("leads at once unless INGEST_ROLE=never", async () => {
    const auto = member("auto", "auto", soleProcessLock);
    const never = member("never", "never", soleProcessLock);
    auto.leadership.start();
    never.leadership.start();
    await waitFor(() => auto.leading());
    expect(auto.leadership.status()).toMatchObject({ role: "auto", leading: true });
    expect(auto.leadership.status().since).toBeInstanceOf(Date);
    expect(never.leadership.status()).toEqual({ role: "never", leading: false, since: null });
    await auto.leadership.stop();
    expect(auto.events).toEqual(["start", "stop"]);
  });
});

describe.skipIf(TEST_ENGINE === "pglite")("on PostgreSQL (several processes, one lock)", () => {
  it("exactly one of three leads; when it stops, another takes over at its next retries", async () => {
    const fleet = [member("a", "auto"), member("b", "auto"), member("c", "auto")];
    for (const m of fleet) {
      m.leadership.start();
    }
    await waitFor(() => leaders(fleet).length === 1);
    // Several rounds of retries later, still exactly one.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 3));
    expect(leaders(fleet)).toHaveLength(1);
    const first = fleet.find((m) => m.leading()) as Member;
    expect(first.events).toEqual(["start"]);
    expect(fleet.filter((m) => m !== first).every((m) => m.events.length === 0)).toBe(true);

    await first.leadership.stop();
    expect(first.events).toEqual(["start", "stop"]);
    const rest = fleet.filter((m) => m !== first);
    const tookMs = await waitFor(() => leaders(rest).length === 1, RETRY_MS * 5);
    expect(tookMs).toBeLessThanOrEqual(RETRY_MS * 5);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 2));
    expect(leaders(rest)).toHaveLength(1);
  });

  it("never takes part with INGEST_ROLE=never, even with the lock free", async () => {
    const never = member("never", "never");
    never.leadership.start();
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 3));
    expect(never.leadership.status()).toEqual({ role: "never", leading: false, since: null });
    const auto = member("auto", "auto");
    auto.leadership.start();
    await waitFor(() => auto.leading());
  });

  it("INGEST_ROLE=always waits in line and takes over the moment the leader goes, ahead of auto", async () => {
    const holder = member("holder", "auto");
    holder.leadership.start();
    await waitFor(() => holder.leading());
    const always = member("always", "always");
    const auto = member("auto", "auto");
    always.leadership.start();
    auto.leadership.start();
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 2));
    expect(leaders([holder, always, auto])).toEqual(["holder"]);

    await holder.leadership.stop();
    await waitFor(() => always.leading() || auto.leading());
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 2));
    expect(leaders([always, auto])).toEqual(["always"]);
  });

  it("a leader whose session is lost stops its jobs, and one process leads again", async () => {
    const fleet = [member("a", "auto"), member("b", "auto")];
    for (const m of fleet) {
      m.leadership.start();
    }
    await waitFor(() => leaders(fleet).length === 1);
    const first = fleet.find((m) => m.leading()) as Member;
    // What a crashed leader's host looks like to the database: its session ends (here: is terminated).
    const { rows } = await t.db.query<{ terminated: boolean }>(
      `SELECT pg_terminate_backend(pid) AS terminated FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = 4242024 AND objid = 1 AND objsubid = 2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(rows).toEqual([{ terminated: true }]);
    await waitFor(() => first.events.includes("stop"), RETRY_MS * 10);
    await waitFor(() => leaders(fleet).length === 1, RETRY_MS * 10);
    // Either may lead now (the deposed one competes again), but never both at once, and the jobs ran once
    // more: started by the new leader after the old one's stopped.
    expect(leaders(fleet)).toHaveLength(1);
    const starts = fleet.flatMap((m) => m.events).filter((e) => e === "start");
    expect(starts).toHaveLength(2);
  });
});
