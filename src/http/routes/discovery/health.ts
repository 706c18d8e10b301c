import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { checkHealth } from "../../../domain/health/check-health.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";

const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    database: z.object({ engine: z.enum(["postgres", "pglite"]), reachable: z.boolean() }),
    ingestion: z
      .array(
        z.object({
          source: z.enum(["placsp", "ted"]),
          last_success_at: z.iso.datetime().nullable(),
          last_success_age_seconds: z.number().int().min(0).nullable().openapi({
            description: "Seconds since last_success_at; null when no run of the source has succeeded.",
          }),
          last_error: z.object({ at: z.iso.datetime(), message: z.string().nullable() }).nullable(),
        }),
      )
      .openapi({
        description:
          "Per source: the end of the last successful ingest run and the newest failed run (when it ended and " +
          "why). Ingestion failing does not make the service unhealthy: it keeps serving what it holds.",
      }),
    ingest_leader: z
      .object({
        role: z.enum(["auto", "always", "never"]).openapi({ description: "This process's INGEST_ROLE." }),
        leading: z.boolean().openapi({
          description:
            "Whether this process runs scheduled ingestion now (one process per database holds the ingest-leader lock).",
        }),
        since: z.iso
          .datetime()
          .nullable()
          .openapi({ description: "When it became the leader; null if not." }),
      })
      .openapi({
        description:
          "Scheduled ingestion (feeds, TED, import folder, retention) runs in exactly one process per database.",
      }),
    payments_mode: z.enum(["dev", "x402"]),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["discovery"],
  summary: "Liveness, database reachability, ingest leadership and per-source ingestion state (free)",
  responses: {
    200: { description: "Serving.", content: { "application/json": { schema: HealthSchema } } },
    503: {
      description: "The database is unreachable.",
      content: { "application/json": { schema: HealthSchema } },
    },
  },
});

export function registerHealth(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const health = await checkHealth({
      ctx: domainContext(c, deps),
      input: { leader: deps.ingestLeader?.() ?? notLeading(deps) },
    });
    const body = { ...health, payments_mode: deps.config.PAYMENTS_MODE };
    return health.status === "ok" ? c.json(body, 200) : c.json(body, 503);
  });
}

/** An app built without a running process around it (in-process tests) runs no scheduled ingestion. */
function notLeading(deps: HttpDeps) {
  return { role: deps.config.INGEST_ROLE, leading: false, since: null };
}
