import { randomInt } from "node:crypto";
import { type Db, type DbSession, openPgSession, type Queryable } from "../db/client.ts";
import { MAX_INSTANCE_KEY, tryLockInstance, unlockInstance } from "../db/queries/fleet-locks.ts";
import type { Logger } from "../lib/logger.ts";

/**
 * This process as a member of the fleet sharing one database: a random instance key, locked (session-level
 * advisory lock) for the process's whole life. Payments in flight carry the key; the lock says whether their
 * process is still alive (payments/orphans.ts). On PostgreSQL the lock sits on a dedicated connection (a pool
 * connection would take it into whatever query borrows it next); on PGlite, on the one session there is.
 */
export interface FleetInstance {
  /** The key the live process holds; it changes only if a lost session's key was taken meanwhile. */
  readonly key: number;
  close(): Promise<void>;
}

/** How often the dedicated session is checked, and reopened when it was lost. */
const KEEPALIVE_MS = 5_000;

export async function joinFleet(deps: { db: Db; databaseUrl?: string; log: Logger }): Promise<FleetInstance> {
  if (!deps.databaseUrl) {
    const key = await lockFreshKey(deps.db);
    return {
      key,
      async close() {
        await unlockInstance(deps.db, key).catch(() => {});
      },
    };
  }
  return joinOverPostgres(deps.databaseUrl, deps.log);
}

async function joinOverPostgres(databaseUrl: string, log: Logger): Promise<FleetInstance> {
  let session: DbSession = await openPgSession(databaseUrl, "instance");
  let key = await lockFreshKey(session);
  let closed = false;
  let checking: Promise<void> | null = null;

  const check = async () => {
    if (session.alive && (await answers(session))) {
      return;
    }
    // The session is gone, and with it the lock: this process's unanswered payments may be given back by a
    // sweep now (their commits then fail and serve nothing). Reopen and take the same key again.
    await session.close();
    try {
      session = await openPgSession(databaseUrl, "instance");
      if (!(await tryLockInstance(session, key))) {
        key = await lockFreshKey(session);
      }
      log.warn({ instance: key }, "instance session was lost and is open again");
    } catch (error) {
      log.error(
        { reason: error instanceof Error ? error.message : String(error) },
        "instance session lost; reconnecting",
      );
    }
  };
  const timer = setInterval(() => {
    if (!checking && !closed) {
      checking = check().finally(() => {
        checking = null;
      });
    }
  }, KEEPALIVE_MS);
  timer.unref();

  return {
    get key() {
      return key;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await checking;
      await session.close();
    },
  };
}

/** A round trip within the keepalive period; false when the session does not answer in time. */
async function answers(session: DbSession): Promise<boolean> {
  let timeout: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timeout = setTimeout(() => resolve(false), KEEPALIVE_MS);
  });
  const ping = session.query("SELECT 1").then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([ping, late]);
  } finally {
    clearTimeout(timeout);
  }
}

/** Draws keys until one is free (two live processes drawing the same of 2^31 keys is all but impossible). */
async function lockFreshKey(db: Queryable): Promise<number> {
  for (;;) {
    const key = randomInt(1, MAX_INSTANCE_KEY);
    if (await tryLockInstance(db, key)) {
      return key;
    }
  }
}
