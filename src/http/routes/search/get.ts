import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { searchEnvelope } from "../../../domain/envelope.ts";
import { SearchInputSchema, searchNotices } from "../../../domain/search/search-notices.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { MetaSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { SearchRowSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/search";

/** Search's meta: page, total and total_exact are always present. */
const SearchMetaSchema = MetaSchema.extend({
  page: z.number().int(),
  total: z.number().int().openapi({
    description: "Matching rows: exact up to 10,000; when more match, 10,000 (and total_exact is false).",
  }),
  total_exact: z.boolean().openapi({ description: "Whether total is the exact count of matching rows." }),
}).openapi("SearchMeta");

const route = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  tags: ["search"],
  summary: "Full-text and structured search over awards, tenders and contracts",
  ...pricedOperation(ENDPOINT),
  request: { query: SearchInputSchema },
  responses: {
    200: {
      description:
        "A page of rows. Without q: date (newest first, unknown last), then id, descending. With q: the 10,000 " +
        "newest matching rows are ranked by relevance (PostgreSQL ts_rank over a weighted vector: title words " +
        "weigh 1.0, description words 0.1, so a title match outranks a description-only one), then date, " +
        "then id. meta.total is exact up to 10,000 matching rows; above that it is 10,000 and " +
        "meta.total_exact is false (narrow the filters to see further). Only the first 10,000 rows of an " +
        "answer can be paged to; a page beyond them, or past the last row, is empty.",
      content: {
        "application/json": { schema: z.object({ data: z.array(SearchRowSchema), meta: SearchMetaSchema }) },
      },
    },
    ...errorResponses(400, 402, 429, 500),
  },
});

export function registerSearch(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const input = c.req.valid("query");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      searchNotices({ ctx: domainContext(c, deps), input }),
    );
    return c.json(searchEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
