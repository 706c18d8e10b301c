import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  listCompanyOpportunities,
  OPPORTUNITY_WINDOW_DAYS,
} from "../../../domain/companies/list-company-opportunities.ts";
import { opportunitiesEnvelope } from "../../../domain/envelope.ts";
import { PageInputSchema } from "../../../domain/params.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelopeSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { IdParamSchema } from "../../schemas/common.ts";
import { OpportunitySchema } from "./schema.ts";

const ENDPOINT = "GET /v1/companies/:id/opportunities";
const priced = pricedOperation(ENDPOINT);

const route = createRoute({
  method: "get",
  path: "/v1/companies/{id}/opportunities",
  operationId: "listCompanyOpportunities",
  tags: ["companies"],
  summary: "List open tenders that fit a company's award history, best first",
  ...priced,
  description:
    `${priced.description}\n\n` +
    `Inclusion: tenders published within the last ${OPPORTUNITY_WINDOW_DAYS} days or with a deadline still ` +
    "ahead, whose buyer or CPV (at least the 2-digit division, over every CPV of the tender) matches the " +
    "awards of the company and of the joint ventures (UTE) it is a member of. Excluded as not open: deleted " +
    "or annulled notices, TED notices linked to their PLACSP procedure, PLACSP folders with status ADJ, RES or " +
    "ANUL, TED result notices, and any tender with a published award (so nothing the company already won). " +
    "Order: score descending, then id descending (a total order: walking the pages returns every row once). " +
    "meta.score_explanation spells out the integer formula and its weights; meta.provenance names the notices " +
    "of the page's tenders. page >= 1 (default 1), size 1 to 100 (default 20); a page beyond the last is an " +
    "empty list with meta.total.",
  request: { params: IdParamSchema, query: PageInputSchema },
  responses: {
    200: {
      description: "One page of opportunities; meta.page, meta.total, meta.score_explanation.",
      content: { "application/json": { schema: envelopeSchema(z.array(OpportunitySchema)) } },
    },
    ...errorResponses(400, 402, 404, 429, 500),
  },
});

export function registerListCompanyOpportunities(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { page, size } = c.req.valid("query");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      listCompanyOpportunities({ ctx: domainContext(c, deps), input: { id, page, size } }),
    );
    return c.json(opportunitiesEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
