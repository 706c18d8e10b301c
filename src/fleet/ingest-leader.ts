import { type Config, scheduleIntervalMs } from "../config.ts";
import { type DbSession, openPgSession } from "../db/client.ts";
import { holdsIngestLeader, lockIngestLeader, tryLockIngestLeader } from "../db/queries/fleet-locks.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";

/**
 * One ingest leader per database. Scheduled ingestion (PLACSP and TED polling, the import folder, lead
 * retention; renewal signals and aggregates are refreshed by the ingest runs themselves) runs only in the
 * process holding the ingest-leader lock: a PostgreSQL session-level advisory lock on a dedicated connection.
 * The lock ends with its session, so a leader that exits, crashes or is SIGKILLed releases it at once (a
 * vanished host within ~25 s, by TCP keepalive), and a follower takes it at its next attempt.
 *
 * `INGEST_ROLE`:
 * - `auto`: try the lock at start and then every `leaderRetryMs` (the shortest enabled schedule, at most a
 *   minute); lead while holding it.
 * - `always`: wait for the lock in PostgreSQL's own queue (a blocking `pg_advisory_lock`): the moment the holder
 *   releases it, this process gets it, ahead of any `auto` replica's next try. For the one process meant to
 *   ingest (with `never` on the others); during a rolling deploy it takes over as soon as the old one exits.
 * - `never`: never ingests and never takes the lock (API-only replicas).
 *
 * On PGlite there is one process per data directory (db/data-dir-lock.ts), so it leads unless `never`.
 */

export type IngestRole = Config["INGEST_ROLE"];

export interface LeaderStatus {
  role: IngestRole;
  /** This process runs scheduled ingestion now. */
  leading: boolean;
  /** When it became leader; null while not leading. */
  since: Date | null;
}

/** The jobs a leader runs; stopped (waiting for a round in progress) when leadership ends. */
export interface LeaderJobs {
  stop(): Promise<void>;
}

/** The database side of the election. */
export interface LeaderLock {
  /** Takes the lock (`wait`: queue until it is free); false when not taken (held elsewhere, or unreachable). */
  acquire(wait: boolean): Promise<boolean>;
  /** Whether this process still holds it (false once its session is lost or does not answer). */
  held(): Promise<boolean>;
  /** Gives it up (ends its session). */
  release(): Promise<void>;
}

export interface IngestLeadership {
  status(): LeaderStatus;
  /** Starts competing (nothing for `never`); the first attempt is immediate. */
  start(): void;
  /** Stops the jobs (waiting for a round in progress), then releases the lock. */
  stop(): Promise<void>;
}

/** Followers try again this often: the shortest enabled schedule (so a takeover is within one), 1 s – 60 s. */
export function leaderRetryMs(config: Config): number {
  const ingest = scheduleIntervalMs(config.INGEST_SCHEDULE);
  const schedules = [
    ingest,
    ingest === null ? null : scheduleIntervalMs(config.INGEST_TED_SCHEDULE),
    scheduleIntervalMs(config.IMPORT_SCHEDULE),
    scheduleIntervalMs(config.RETENTION_SCHEDULE),
  ].filter((ms): ms is number => ms !== null);
  return Math.max(1_000, Math.min(60_000, ...schedules));
}

export function createIngestLeadership(deps: {
  role: IngestRole;
  lock: LeaderLock;
  retryMs: number;
  log: Logger;
  now: Clock;
  startJobs(): LeaderJobs;
}): IngestLeadership {
  const { role, lock, log } = deps;
  let leading = false;
  let since: Date | null = null;
  let jobs: LeaderJobs | null = null;
  let ticking: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let toldFollowing = false;

  const depose = async (why: string) => {
    leading = false;
    since = null;
    log.warn({ reason: why }, "no longer the ingest leader: scheduled ingestion stops here");
    await jobs?.stop();
    jobs = null;
  };

  const tick = async () => {
    if (leading) {
      if (!(await lock.held())) {
        await depose("the ingest-leader lock's database session was lost");
      }
      return;
    }
    const acquired = await lock.acquire(role === "always");
    if (stopped) {
      return;
    }
    if (!acquired) {
      if (!toldFollowing) {
        toldFollowing = true;
        log.info(
          { role, retryMs: deps.retryMs },
          "another process leads ingestion; this one serves and tries again each interval",
        );
      }
      return;
    }
    leading = true;
    toldFollowing = false;
    since = deps.now();
    jobs = deps.startJobs();
    log.info({ role }, "this process leads ingestion: scheduled ingestion runs here");
  };

  const schedule = () => {
    if (ticking || stopped) {
      return;
    }
    ticking = tick()
      .catch((error: unknown) => {
        log.error(
          { reason: error instanceof Error ? error.message : String(error) },
          "ingest election failed",
        );
      })
      .finally(() => {
        ticking = null;
      });
  };

  return {
    status: () => ({ role, leading, since }),
    start() {
      if (role === "never") {
        log.info("INGEST_ROLE=never: this process never runs scheduled ingestion");
        return;
      }
      schedule();
      timer = setInterval(schedule, deps.retryMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) {
        clearInterval(timer);
      }
      if (leading) {
        leading = false;
        since = null;
        await jobs?.stop();
        jobs = null;
      }
      // Ends the session: releases the lock, and cancels a queued `always` wait (which `ticking` then ends).
      await lock.release();
      await ticking;
    },
  };
}

/** How long a leader's check of its own session may take before the session counts as lost. */
const HELD_CHECK_TIMEOUT_MS = 10_000;

/** The ingest-leader lock on a dedicated PostgreSQL session (opened on demand, reopened after a loss). */
export function pgLeaderLock(databaseUrl: string, log: Logger): LeaderLock {
  let session: DbSession | null = null;
  let reportedUnreachable = false;
  const drop = async () => {
    const lost = session;
    session = null;
    await lost?.close();
  };
  return {
    async acquire(wait) {
      try {
        if (!session?.alive) {
          await drop();
          session = await openPgSession(databaseUrl, "ingest-leader");
        }
        const current = session;
        if (wait) {
          await lockIngestLeader(current);
          reportedUnreachable = false;
          return session === current && current.alive;
        }
        const locked = await tryLockIngestLeader(current);
        reportedUnreachable = false;
        return locked;
      } catch (error) {
        if (!reportedUnreachable) {
          reportedUnreachable = true;
          log.warn(
            { reason: error instanceof Error ? error.message : String(error) },
            "cannot reach the database for the ingest-leader lock; will retry",
          );
        }
        await drop();
        return false;
      }
    },
    async held() {
      const current = session;
      if (!current?.alive) {
        return false;
      }
      let timeout: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timeout = setTimeout(() => resolve(false), HELD_CHECK_TIMEOUT_MS);
      });
      try {
        const held = await Promise.race([holdsIngestLeader(current).catch(() => false), late]);
        if (!held) {
          await drop();
        }
        return held;
      } finally {
        clearTimeout(timeout);
      }
    },
    release: drop,
  };
}

/** PGlite: the data-directory lock already makes this the only process, so the election is always won. */
export const soleProcessLock: LeaderLock = {
  acquire: async () => true,
  held: async () => true,
  release: async () => {},
};
