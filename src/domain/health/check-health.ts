import { pingDatabase } from "../../db/queries/health.ts";
import type { DomainContext } from "../context.ts";

export interface Health {
  status: "ok" | "unavailable";
  database: { engine: "postgres" | "pglite"; reachable: boolean };
}

export async function checkHealth({ ctx }: { ctx: DomainContext }): Promise<Health> {
  let reachable = false;
  try {
    reachable = await pingDatabase(ctx.db);
  } catch (error) {
    ctx.log.warn({ err: error }, "health check: database unreachable");
  }
  return { status: reachable ? "ok" : "unavailable", database: { engine: ctx.db.engine, reachable } };
}
