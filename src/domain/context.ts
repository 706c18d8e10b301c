import type { Db } from "../db/client.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";

/** What every domain verb receives: storage, a logger and the clock (never the wall clock directly). */
export interface DomainContext {
  db: Db;
  log: Logger;
  now: Clock;
  /** Entries of the per-database search result cache (SEARCH_CACHE_ENTRIES); 0 turns it off. */
  searchCacheEntries?: number;
}
