import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { checkHealth } from "../../../domain/health/check-health.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";

const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    database: z.object({ engine: z.enum(["postgres", "pglite"]), reachable: z.boolean() }),
    payments_mode: z.enum(["dev", "x402"]),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["discovery"],
  summary: "Liveness and database reachability (free)",
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
