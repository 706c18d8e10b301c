import type { Db, Queryable } from "../db/client.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";

/** What every domain verb receives: storage, a logger and the clock (never the wall clock directly). */
export interface DomainContext {
  /** The primary database: every write, and reads that must see them. */
  db: Db;
  /**
   * Where read-only verbs (search, tenders, companies, buyers) read: a PostgreSQL read replica when
   * `DATABASE_READ_URL` is set, so reads scale out with the database; unset = `db`.
   */
  readDb?: Queryable;
  log: Logger;
  now: Clock;
}

/** The database a read-only verb queries. */
export function readerOf(ctx: DomainContext): Queryable {
  return ctx.readDb ?? ctx.db;
}
