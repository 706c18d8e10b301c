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
          last_error: z.object({ at: z.iso.datetime(), message: z.string().nullable() }).nullable(),
        }),
      )
      .openapi({
        description:
          "Per source: the end of the last successful ingest run and the newest failed run (when it ended and " +
          "why). Ingestion failing does not make the service unhealthy: it keeps serving what it holds.",
      }),
    payments_mode: z.enum(["dev", "x402"]),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["discovery"],
  summary: "Liveness, database reachability and per-source ingestion state (free)",
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
    const health = await checkHealth({ ctx: domainContext(c, deps) });
    const body = { ...health, payments_mode: deps.config.PAYMENTS_MODE };
    return health.status === "ok" ? c.json(body, 200) : c.json(body, 503);
  });
}
