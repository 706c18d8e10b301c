import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { listCompanyAwards } from "../../../domain/companies/list-company-awards.ts";
import { companyAwardsEnvelope } from "../../../domain/envelope.ts";
import { PageInputSchema } from "../../../domain/params.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelopeSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { IdParamSchema } from "../../schemas/common.ts";
import { AwardWithTenderSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/companies/:id/awards";
const priced = pricedOperation(ENDPOINT);

const route = createRoute({
  method: "get",
  path: "/v1/companies/{id}/awards",
  operationId: "listCompanyAwards",
  tags: ["companies"],
  summary: "List a company's awards, newest first",
  ...priced,
  description:
    `${priced.description}\n\n` +
    "Order: award date descending (unknown dates last), then id descending: a total order, so walking the " +
    "pages returns every award once. page >= 1 (default 1), size 1 to 100 (default 20); a page beyond the " +
    "last is an empty list with meta.total. meta.provenance names the notices of the page's awards.",
  request: { params: IdParamSchema, query: PageInputSchema },
  responses: {
    200: {
      description: "One page of the company's awards with tender context; meta.page and meta.total.",
      content: { "application/json": { schema: envelopeSchema(z.array(AwardWithTenderSchema)) } },
    },
    ...errorResponses(400, 402, 404, 429, 500),
  },
});

export function registerListCompanyAwards(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { page, size } = c.req.valid("query");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      listCompanyAwards({ ctx: domainContext(c, deps), input: { id, page, size } }),
    );
    return c.json(companyAwardsEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
