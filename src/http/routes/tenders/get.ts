import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { tenderEnvelope } from "../../../domain/envelope.ts";
import { getTender } from "../../../domain/tenders/get-tender.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelopeSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { IdParamSchema } from "../../schemas/common.ts";
import { TenderSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/tenders/:id";

const route = createRoute({
  method: "get",
  path: "/v1/tenders/{id}",
  operationId: "getTender",
  tags: ["tenders"],
  summary: "Get a tender with its awards",
  ...pricedOperation(ENDPOINT),
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: "The tender, its awards and the upstream notice in provenance.",
      content: { "application/json": { schema: envelopeSchema(TenderSchema) } },
    },
    ...errorResponses(400, 402, 404, 429, 500),
  },
});

export function registerGetTender(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      getTender({ ctx: domainContext(c, deps), input: { id } }),
    );
    return c.json(tenderEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
