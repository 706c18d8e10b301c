import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { BUYER_RECENT_AWARDS, getBuyerHistory } from "../../../domain/buyers/get-buyer-history.ts";
import { buyerHistoryEnvelope } from "../../../domain/envelope.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelopeSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { IdParamSchema } from "../../schemas/common.ts";
import { BuyerSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/buyers/:id/history";
const priced = pricedOperation(ENDPOINT);

const route = createRoute({
  method: "get",
  path: "/v1/buyers/{id}/history",
  operationId: "getBuyerHistory",
  tags: ["buyers"],
  summary: "Get a buyer's award history, supplier concentration and recurrence",
  ...priced,
  description:
    `${priced.description}\n\n` +
    `awards lists the newest ${BUYER_RECENT_AWARDS} awards (award date descending, unknown dates last, then ` +
    "id descending); awards_total counts all. supplier_concentration = top3_share_by_count: the share of " +
    "awards with a winner won by the 3 suppliers with most awards. top3_share_by_value: the same by EUR " +
    "value, framework ceilings excluded (meta.caveats says how many). recurrence: per CPV division, the " +
    "median months (30.4375 days) between consecutive distinct award dates. Aggregates are refreshed after " +
    "every ingest run. meta.provenance names the notices of the listed awards.",
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: "The buyer, its recent awards and aggregates.",
      content: { "application/json": { schema: envelopeSchema(BuyerSchema) } },
    },
    ...errorResponses(400, 402, 404, 429, 500),
  },
});

export function registerGetBuyerHistory(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      getBuyerHistory({ ctx: domainContext(c, deps), input: { id } }),
    );
    return c.json(buyerHistoryEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
