import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { COMPANY_PROVENANCE_AWARDS, getCompany } from "../../../domain/companies/get-company.ts";
import { companyEnvelope } from "../../../domain/envelope.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelopeSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { IdParamSchema } from "../../schemas/common.ts";
import { CompanySchema } from "./schema.ts";

const ENDPOINT = "GET /v1/companies/:id";
const priced = pricedOperation(ENDPOINT);

const route = createRoute({
  method: "get",
  path: "/v1/companies/{id}",
  operationId: "getCompany",
  tags: ["companies"],
  summary: "Get a company profile with win aggregates",
  ...priced,
  description:
    `${priced.description}\n\n` +
    "A win is an award naming the company as winner. Sums (total_awarded_value, total_value) add EUR " +
    "values that are not framework ceilings; meta.caveats says how many ceilings (and values in other " +
    "currencies) were left out. Aggregates are refreshed after every ingest run. One company per normalized " +
    "NIF across sources; joint ventures (UTE) are companies of their own (is_joint_venture, members, " +
    `member_of). meta.provenance names the notices of the newest ${COMPANY_PROVENANCE_AWARDS} awards.`,
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: "The company, its aggregates, and the notices of its newest awards in provenance.",
      content: { "application/json": { schema: envelopeSchema(CompanySchema) } },
    },
    ...errorResponses(400, 402, 404, 429, 500),
  },
});

export function registerGetCompany(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      getCompany({ ctx: domainContext(c, deps), input: { id } }),
    );
    return c.json(companyEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
