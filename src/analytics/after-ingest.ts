import type { Db } from "../db/client.ts";
import { refreshSourceCoverage } from "../db/queries/demo.ts";
import { linkTedToPlacsp, markSupersededAwards } from "../db/queries/links.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { maintainEmbeddedDatabase } from "./maintain-embedded.ts";
import { refreshStats } from "./refresh-stats.ts";
import { recomputeSignals } from "./renewals/recompute.ts";

/**
 * What follows every successful ingest run, whatever its source: link procedures published on both sources,
 * keep the awards of linked tenders out of the counts, then refresh the aggregates and the renewal signals of what
 * changed; on the embedded engine, what autovacuum would do (maintain-embedded.ts).
 */
export async function afterIngestRun(deps: { db: Db; log: Logger; now: Clock }): Promise<void> {
  const linked = await deps.db.transaction(async (tx) => {
    const count = await linkTedToPlacsp(tx);
    await markSupersededAwards(tx);
    return count;
  });
  if (linked > 0) {
    deps.log.info({ linked }, "linked TED tenders to their PLACSP procedures");
  }
  await refreshStats(deps);
  await recomputeSignals(deps);
  await refreshSourceCoverage(deps.db, deps.now());
  await maintainEmbeddedDatabase(deps);
}
