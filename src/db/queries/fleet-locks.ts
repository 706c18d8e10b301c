import type { Queryable } from "../client.ts";

/**
 * The session-level advisory locks that coordinate server processes sharing one database. Both use the
 * two-key form (`pg_advisory_lock(int, int)`), a key space apart from the one-key transaction locks of
 * migrations and refreshes.
 *
 * - Instance locks `(INSTANCE_LOCK_SPACE, key)`: every server process holds one, on a random key, for its
 *   whole life. A payment taken by a process is marked with its key; the process is alive exactly as long as
 *   the lock is held (PostgreSQL releases it when the session ends: exit, crash, SIGKILL, lost host).
 * - The ingest-leader lock `(INGEST_LEADER_LOCK_SPACE, 1)`: held by the one process that runs scheduled
 *   ingestion.
 */

const INSTANCE_LOCK_SPACE = 4_242_023;
const INGEST_LEADER_LOCK_SPACE = 4_242_024;
const INGEST_LEADER_KEY = 1;

/** Instance keys are drawn from 1 … 2^31 − 1 (positive int4, as pg_locks shows them in `objid`). */
export const MAX_INSTANCE_KEY = 2_147_483_647;

/** Takes the instance lock on `key` for this session; false when another live process holds that key. */
export async function tryLockInstance(db: Queryable, key: number): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [
    INSTANCE_LOCK_SPACE,
    key,
  ]);
  return rows[0]?.locked === true;
}

export async function unlockInstance(db: Queryable, key: number): Promise<void> {
  await db.query("SELECT pg_advisory_unlock($1, $2)", [INSTANCE_LOCK_SPACE, key]);
}

/**
 * A subquery of the instance keys whose lock some session of this database holds now: the live processes.
 * Spliced into the sweeps of `pending-charges.ts`, `dev-tokens.ts` and `payment-proofs.ts`.
 */
export const LIVE_INSTANCE_KEYS = `(SELECT l.objid::bigint FROM pg_locks l
   WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = ${INSTANCE_LOCK_SPACE}
     AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database()))`;

/** Takes the ingest-leader lock if it is free; false when another session holds it. */
export async function tryLockIngestLeader(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [
    INGEST_LEADER_LOCK_SPACE,
    INGEST_LEADER_KEY,
  ]);
  return rows[0]?.locked === true;
}

/** Waits in PostgreSQL's queue for the ingest-leader lock: returns once this session holds it. */
export async function lockIngestLeader(db: Queryable): Promise<void> {
  await db.query("SELECT pg_advisory_lock($1, $2)", [INGEST_LEADER_LOCK_SPACE, INGEST_LEADER_KEY]);
}

export async function unlockIngestLeader(db: Queryable): Promise<void> {
  await db.query("SELECT pg_advisory_unlock($1, $2)", [INGEST_LEADER_LOCK_SPACE, INGEST_LEADER_KEY]);
}

/** Whether this session holds the ingest-leader lock (a round trip that also proves the session alive). */
export async function holdsIngestLeader(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ held: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_backend_pid()
          AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 2) AS held`,
    [INGEST_LEADER_LOCK_SPACE, INGEST_LEADER_KEY],
  );
  return rows[0]?.held === true;
}
