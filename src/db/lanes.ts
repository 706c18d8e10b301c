import { setTimeout as delay, setImmediate as nextLoopTurn } from "node:timers/promises";
import type { Db, Queryable } from "./client.ts";

/**
 * Two views of one database: `foreground` for the calls a person or agent is waiting on, `background` for the
 * batch writers that run inside the serving process (the ingest and what follows it).
 *
 * On PostgreSQL they are the same object: every statement has its own connection and readers never wait for
 * writers (MVCC). The embedded engine has one connection in the serving process's one thread, and it serialises
 * every statement and transaction in arrival order, so a search that arrives while an ingest batch holds the
 * engine waits for the whole batch. Here `background` waits for its turn before each statement or transaction:
 * until no foreground statement has run for `quietMs` (no request is coming), or until it has waited `maxWaitMs`
 * (while requests keep coming the background still advances, at a bounded share), and then goes on for `sliceMs`.
 * A statement already running is never interrupted: a request that arrives during a batch transaction waits for
 * it, so the background view also asks batch writers to keep their transactions short (`shortTransactions`).
 * `quietMs` is longer than the pause between the calls of a client that keeps calling (100 ms: with 10 ms the
 * ingest ran between such calls and the requests waited for its transactions; bench/results/api.md, "PGlite during
 * an ingest: requests first"; docs/decisions.md, "Search while the embedded engine ingests").
 */
export interface Lanes {
  foreground: Db;
  background: Db;
}

export interface LaneOptions {
  /** The foreground counts as idle after this long without a statement (longer than a calling client's pauses). */
  quietMs: number;
  /** The background never waits longer than this for one turn. */
  maxWaitMs: number;
  /** A turn lasts this long: statements and `pace()` calls within it go on without asking again. */
  sliceMs: number;
  /** Clock and sleep, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_LANE_OPTIONS: LaneOptions = { quietMs: 100, maxWaitMs: 250, sliceMs: 20 };

export function openLanes(db: Db, options: LaneOptions = DEFAULT_LANE_OPTIONS): Lanes {
  if (db.engine === "postgres") {
    return { foreground: db, background: db };
  }
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  let active = 0;
  let lastEnded = Number.NEGATIVE_INFINITY;

  const tracked = async <T>(work: () => Promise<T>): Promise<T> => {
    active += 1;
    try {
      return await work();
    } finally {
      active -= 1;
      lastEnded = now();
    }
  };

  let turnEnds = Number.NEGATIVE_INFINITY;
  const turn = async (): Promise<void> => {
    if (now() < turnEnds) {
      return;
    }
    // The embedded engine answers in microtasks: background statements run back to back never let the event loop
    // turn, so a request that has arrived is not even read, and the foreground looks quiet for as long as the
    // background keeps going (blocks of seconds were measured: bench/results/api.md, "the event loop between
    // turns"). Each turn therefore starts by letting the loop turn once: what arrived meanwhile is read first, and
    // a request that reached the engine is counted before the quiet is judged.
    await nextLoopTurn();
    const since = now();
    for (;;) {
      const t = now();
      const quietFor = active === 0 ? t - lastEnded : 0;
      const waited = t - since;
      if (t < turnEnds) {
        return;
      }
      if (quietFor >= options.quietMs || waited >= options.maxWaitMs) {
        turnEnds = t + options.sliceMs;
        return;
      }
      await sleep(Math.max(1, Math.min(options.quietMs - quietFor, options.maxWaitMs - waited)));
    }
  };

  const view = (gate: <T>(work: () => Promise<T>) => Promise<T>): Db => ({
    engine: db.engine,
    query: <T>(sql: string, params?: readonly unknown[]) => gate(() => db.query<T>(sql, params)),
    exec: (sql: string) => gate(() => db.exec(sql)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => gate(() => db.transaction(fn)),
    close: () => db.close(),
  });

  return {
    foreground: view(tracked),
    background: {
      ...view(async (work) => {
        await turn();
        return work();
      }),
      pace: turn,
      shortTransactions: true,
    },
  };
}
