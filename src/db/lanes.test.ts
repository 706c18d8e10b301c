import { describe, expect, it } from "vitest";
import type { Db, QueryResult } from "./client.ts";
import { type LaneOptions, openLanes } from "./lanes.ts";

/**
 * An engine whose statements take a set time on a clock the test drives, one millisecond at a time: the gate's
 * sleeps and the statements are timers on that clock. Times are exact, so the tests assert when background work
 * starts, not how long anything takes.
 */
function harness(engine: Db["engine"] = "pglite") {
  let clock = 0;
  const started: { sql: string; at: number }[] = [];
  const timers: { at: number; fire: () => void }[] = [];
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      timers.push({ at: clock + ms, fire: resolve });
    });
  const db: Db = {
    engine,
    async query<T>(sql: string): Promise<QueryResult<T>> {
      started.push({ sql, at: clock });
      // A statement named "fg N" runs for N ms; any other is instant.
      const match = /^fg (\d+)$/.exec(sql);
      if (match) {
        await wait(Number(match[1]));
      }
      return { rows: [], rowCount: 0 };
    },
    exec: async (sql: string) => {
      started.push({ sql, at: clock });
    },
    transaction: (fn) => fn(db),
    close: async () => {},
  };
  // Two turns of the event loop: the gate lets it turn once at the start of each turn (lanes.ts).
  const settle = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** Moves the clock 1 ms at a time until `work` settles (at most `limit` ms). */
  const run = async <T>(work: Promise<T>, limit = 2_000): Promise<T> => {
    let done = false;
    const result = work.finally(() => {
      done = true;
    });
    await settle();
    while (!done && clock < limit) {
      clock += 1;
      for (const timer of timers.filter((t) => t.at <= clock)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.fire();
      }
      await settle();
    }
    return result;
  };
  const options: LaneOptions = { quietMs: 10, maxWaitMs: 250, sliceMs: 20, now: () => clock, sleep: wait };
  return { db, started, options, run, wait, at: () => clock };
}

const startOf = (started: { sql: string; at: number }[], sql: string) =>
  started.find((s) => s.sql === sql)?.at;

describe("openLanes", () => {
  it("is the database itself on PostgreSQL, where readers never wait for writers", () => {
    const { db, options } = harness("postgres");
    const lanes = openLanes(db, options);
    expect(lanes.foreground).toBe(db);
    expect(lanes.background).toBe(db);
  });

  it("asks the embedded engine's batch writers, not its requests, for short transactions", () => {
    const { db, options } = harness();
    const lanes = openLanes(db, options);
    expect(lanes.background.shortTransactions).toBe(true);
    expect(lanes.foreground.shortTransactions).toBeUndefined();
  });

  it("starts background work at once when the foreground is idle", async () => {
    const { db, started, options, run } = harness();
    const lanes = openLanes(db, options);
    await run(lanes.background.query("bg"));
    expect(startOf(started, "bg")).toBe(0);
  });

  it("holds background work until the foreground has been quiet for quietMs", async () => {
    const { db, started, options, run } = harness();
    const lanes = openLanes(db, options);
    const fg = lanes.foreground.query("fg 40");
    const bg = lanes.background.query("bg");
    await run(Promise.all([fg, bg]));
    // The foreground statement ends at 40; the background starts 10 ms of quiet later, not before.
    expect(startOf(started, "bg")).toBe(50);
  });

  it("waits for a quiet gap again when the foreground resumes within quietMs", async () => {
    const { db, started, options, run, wait } = harness();
    const lanes = openLanes(db, options);
    await run(
      Promise.all([
        lanes.foreground.query("fg 20").then(async () => {
          await wait(5); // the request's own code between two statements
          await lanes.foreground.query("fg 30");
        }),
        lanes.background.transaction((tx) => tx.query("bg")),
      ]),
    );
    // 0–20 first statement, 5 ms gap (shorter than quietMs), 25–55 second; quiet from 55, so 65.
    expect(startOf(started, "bg")).toBe(65);
  });

  it("never waits longer than maxWaitMs, so a foreground that never pauses cannot starve it", async () => {
    const { db, started, options, run } = harness();
    const lanes = openLanes(db, options);
    let busy = true;
    // Back-to-back foreground statements with no gap at all, until the background has run.
    const load = (async () => {
      while (busy) {
        await lanes.foreground.query("fg 7");
      }
    })();
    await run(lanes.background.query("bg"));
    busy = false;
    await run(load);
    const at = startOf(started, "bg") ?? -1;
    expect(at).toBeGreaterThanOrEqual(250);
    expect(at).toBeLessThan(260);
    // It started while a foreground statement was running (this engine does not serialise; PGlite would queue it
    // behind that one statement).
    expect(started.some((s) => s.sql === "fg 7" && s.at <= at && at < s.at + 7)).toBe(true);
  });

  it("lets background work go on within a turn of sliceMs, then asks again", async () => {
    const { db, started, options, run, wait } = harness();
    const lanes = openLanes(db, options);
    await run(lanes.background.query("bg 1")); // idle engine: a turn from 0 to 20
    await run(Promise.all([lanes.foreground.query("fg 30"), lanes.background.exec("bg 2")]));
    expect(startOf(started, "bg 2")).toBe(0);
    await run(wait(5)); // 35: the turn is over
    await run(Promise.all([lanes.foreground.query("fg 30"), lanes.background.query("bg 3")]));
    expect(startOf(started, "bg 3")).toBe(75);
  });

  it("paces the background's own work: under a load that never pauses, a turn of sliceMs every maxWaitMs", async () => {
    const { db, options, run, wait, at } = harness();
    const lanes = openLanes(db, options);
    let busy = true;
    const load = (async () => {
      while (busy) {
        await lanes.foreground.query("fg 7");
      }
    })();
    const paced: number[] = [];
    await run(
      (async () => {
        for (let entry = 0; entry < 6; entry++) {
          await lanes.background.pace?.();
          paced.push(at());
          await wait(5); // one entry's parse
        }
      })(),
      5_000,
    );
    busy = false;
    await run(load, 6_000);
    expect(paced).toEqual([250, 255, 260, 265, 520, 525]);
  });

  it("lets the event loop turn between turns, so a request can arrive while the background runs statements back to back", async () => {
    // The embedded engine answers in microtasks, as this one does: without a turn of the event loop a request
    // (here a timer, as an incoming connection is an I/O callback) could not even start until the background had
    // finished all its statements.
    const answered: Db = {
      engine: "pglite",
      query: async <T>() => ({ rows: [] as T[], rowCount: 0 }),
      exec: async () => {},
      transaction: (fn) => fn(answered),
      close: async () => {},
    };
    const lanes = openLanes(answered, { quietMs: 100, maxWaitMs: 250, sliceMs: 5 });
    let statements = 0;
    let backgroundDone = false;
    let request: Promise<{ statements: number; backgroundDone: boolean }> | undefined;
    const started = performance.now();
    // Statements for 100 ms of this thread's time (the request is due once the first has run, and a turn lasts 5 ms).
    while (performance.now() - started < 100) {
      await lanes.background.query("SELECT 1");
      statements += 1;
      // Due only once the background is under way: on a slow machine a timer set before the first statement can be
      // due before the first turn starts, which would prove nothing.
      request ??= new Promise((resolve) => {
        setTimeout(() => {
          void lanes.foreground.query("SELECT 1").then(() => resolve({ statements, backgroundDone }));
        }, 0);
      });
    }
    backgroundDone = true;
    const seen = await request;
    expect(seen?.backgroundDone).toBe(false);
    expect(seen?.statements).toBeGreaterThan(0);
    expect(seen?.statements).toBeLessThan(statements);
  });
});
