import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { renewalsEnvelope } from "../../../domain/envelope.ts";
import { listRenewals, RenewalsInputSchema } from "../../../domain/renewals/list-renewals.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { RenewalSignalSchema, RenewalsMetaSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/renewals";

const route = createRoute({
  method: "get",
  path: "/v1/renewals",
  operationId: "listRenewals",
  tags: ["signals"],
  summary: "Re-tender forecast signals (deterministic heuristic, not probabilities)",
  ...pricedOperation(ENDPOINT),
  request: { query: RenewalsInputSchema },
  responses: {
    200: {
      description:
        "Signals whose window overlaps [today, today + window_months], ordered by window_start, then " +
        "confidence (high first), then id. Signals already re-tendered are left out unless " +
        "include_retendered=true. meta.provenance names the notices of the awards the listed signals use; " +
        "meta.backtest reports the latest backtest (hit rates per signal type and confidence beside a naive " +
        "base rate).",
      content: {
        "application/json": {
          schema: z.object({
            data: z.object({ signals: z.array(RenewalSignalSchema) }),
            meta: RenewalsMetaSchema,
          }),
        },
      },
    },
    ...errorResponses(400, 402, 429, 500),
  },
});

export function registerListRenewals(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const input = c.req.valid("query");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      listRenewals({ ctx: domainContext(c, deps), input }),
    );
    return c.json(renewalsEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
