import { pingDatabase } from "../../db/queries/health.ts";
import type { DomainContext } from "../context.ts";

export interface IngestionHealth {
  source: "placsp" | "ted";
  /** End of the last successful ingest run; null when none has succeeded. */
  last_success_at: string | null;
  /** Whole seconds since then (on the domain clock); null when none has succeeded. */
  last_success_age_seconds: number | null;
  /** The newest failed run: when it ended and why; null when none has failed. */
  last_error: { at: string; message: string | null } | null;
}

/** Whether this process runs scheduled ingestion (fleet/ingest-leader.ts). */
export interface IngestLeaderHealth {
  role: "auto" | "always" | "never";
  leading: boolean;
  /** When this process became the leader; null while it is not. */
  since: string | null;
}

export interface Health {
  status: "ok" | "unavailable";
  database: { engine: "postgres" | "pglite"; reachable: boolean };
  /** Per source; empty when the database cannot be read. */
  ingestion: IngestionHealth[];
  ingest_leader: IngestLeaderHealth;
}

/**
 * Liveness, database reachability, whether this process leads ingestion and, per source, the last successful
 * ingest (and its age) and the last failure: a server whose scheduled ingestion fails (offline, upstream down)
 * still serves, but says so here.
 */
export async function checkHealth({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: { leader: { role: IngestLeaderHealth["role"]; leading: boolean; since: Date | null } };
}): Promise<Health> {
  const now = ctx.now();
  let reachable = false;
  let ingestion: IngestionHealth[] = [];
  try {
    const ping = await pingDatabase(ctx.db);
    reachable = ping.ok;
    ingestion = ping.sources.map((s) => ({
      source: s.source,
      last_success_at: s.last_success_at ? s.last_success_at.toISOString() : null,
      last_success_age_seconds: s.last_success_at
        ? Math.max(0, Math.floor((now.getTime() - s.last_success_at.getTime()) / 1000))
        : null,
      last_error: s.last_error_at ? { at: s.last_error_at.toISOString(), message: s.last_error } : null,
    }));
  } catch (error) {
    ctx.log.warn({ err: error }, "health check: database unreachable");
  }
  return {
    status: reachable ? "ok" : "unavailable",
    database: { engine: ctx.db.engine, reachable },
    ingestion,
    ingest_leader: {
      role: input.leader.role,
      leading: input.leader.leading,
      since: input.leader.since ? input.leader.since.toISOString() : null,
    },
  };
}
