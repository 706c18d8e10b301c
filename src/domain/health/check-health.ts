import { pingDatabase } from "../../db/queries/health.ts";
import type { DomainContext } from "../context.ts";

export interface IngestionHealth {
  source: "placsp" | "ted";
  /** End of the last successful ingest run; null when none has succeeded. */
  last_success_at: string | null;
  /** The newest failed run: when it ended and why; null when none has failed. */
  last_error: { at: string; message: string | null } | null;
}

export interface Health {
  status: "ok" | "unavailable";
  database: { engine: "postgres" | "pglite"; reachable: boolean };
  /** Per source; empty when the database cannot be read. */
  ingestion: IngestionHealth[];
}

/**
 * Liveness, database reachability and, per source, the last successful ingest and the last failure: a server
 * whose scheduled ingestion fails (offline, upstream down) still serves, but says so here.
 */
export async function checkHealth({ ctx }: { ctx: DomainContext }): Promise<Health> {
  let reachable = false;
  let ingestion: IngestionHealth[] = [];
  try {
    const ping = await pingDatabase(ctx.db);
    reachable = ping.ok;
    ingestion = ping.sources.map((s) => ({
      source: s.source,
      last_success_at: s.last_success_at ? s.last_success_at.toISOString() : null,
      last_error: s.last_error_at ? { at: s.last_error_at.toISOString(), message: s.last_error } : null,
    }));
  } catch (error) {
    ctx.log.warn({ err: error }, "health check: database unreachable");
  }
  return {
    status: reachable ? "ok" : "unavailable",
    database: { engine: ctx.db.engine, reachable },
    ingestion,
  };
}
