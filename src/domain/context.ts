import type { Db } from "../db/client.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { SearchIndexHolder } from "./search/index/index-holder.ts";

/** What every domain verb receives: storage, a logger and the clock (never the wall clock directly). */
export interface DomainContext {
  db: Db;
  log: Logger;
  now: Clock;
  /** The process's in-memory search index for `db`; without it, search runs in SQL (SEARCH_INDEX=off). */
  searchIndex?: SearchIndexHolder;
}
