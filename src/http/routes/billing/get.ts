import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelope, envelopeSchema } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { BalanceSchema, ClientKeyHeaderSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/v1/billing",
  operationId: "getBilling",
  tags: ["payments"],
  summary: "Prepaid credit balance of a client key (free)",
  description:
    "The account named by header x-client-key: balance in cents and USD, kind, preserved trial calls and " +
    "subscription expiry. 404 not_found when no account exists for the key (buy a bundle to create it).",
  request: { headers: ClientKeyHeaderSchema },
  responses: {
    200: {
      description: "The account's balance.",
      content: { "application/json": { schema: envelopeSchema(BalanceSchema) } },
    },
    ...errorResponses(400, 404, 429, 500),
  },
});

export function registerGetBilling(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { "x-client-key": key } = c.req.valid("header");
    const balance = await deps.payments.credits.balance(key);
    return c.json(envelope(c, balance, { priceCents: 0, paid: false }), 200);
  });
}
