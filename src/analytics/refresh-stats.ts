import type { Db } from "../db/client.ts";
import {
  lockStatsRefresh,
  recomputeBuyerStats,
  recomputeCompanyStats,
  takeDirtyStats,
} from "../db/queries/stats.ts";
import type { Logger } from "../lib/logger.ts";

export interface RefreshStatsResult {
  /** Companies and buyers recomputed (full: every one that has awards or had stats). */
  companies: number;
  buyers: number;
  full: boolean;
  ms: number;
}

/**
 * Brings the materialized company and buyer aggregates (company_stats, buyer_stats) up to date with the
 * awards. Called after every successful ingest run.
 *
 * Incremental by default: a trigger on awards marks the winners and buyers of every inserted, deleted or
 * materially updated award (old and new values) in stats_dirty, and only those are recomputed, so a run that
 * changed nothing costs one empty DELETE and an hourly poll costs milliseconds whatever the database size.
 * `full` recomputes everything (after a rule change). One transaction: readers see the old aggregates until
 * the new ones are complete; concurrent refreshes queue on an advisory lock.
 */
export async function refreshStats({
  db,
  log,
  full = false,
}: {
  db: Db;
  log: Logger;
  full?: boolean;
}): Promise<RefreshStatsResult> {
  const started = performance.now();
  const counts = await db.transaction(async (tx) => {
    await lockStatsRefresh(tx);
    const dirty = await takeDirtyStats(tx);
    // Recomputed after the marks were taken: every change behind a taken mark is visible from here on.
    return {
      companies: await recomputeCompanyStats(tx, full ? "all" : dirty.companies),
      buyers: await recomputeBuyerStats(tx, full ? "all" : dirty.buyers),
    };
  });
  const result: RefreshStatsResult = { ...counts, full, ms: Math.round(performance.now() - started) };
  log.info(result, "company and buyer stats refreshed");
  return result;
}
