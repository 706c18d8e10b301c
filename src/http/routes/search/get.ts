import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { FRAMEWORK_CEILING_CAVEAT } from "../../../domain/caveats.ts";
import { searchNotices } from "../../../domain/search/search-notices.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelope, envelopeSchema } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { SearchQuerySchema } from "../../schemas/query.ts";
import { SearchRowSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/search";

const route = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  tags: ["search"],
  summary: "Full-text and structured search over awards, tenders and contracts",
  ...pricedOperation(ENDPOINT),
  request: { query: SearchQuerySchema },
  responses: {
    200: {
      description:
        "A page of rows. Order: with q, text rank then date then id; without, date (newest first, unknown last) " +
        "then id, descending. The text rank is PostgreSQL's ts_rank against the query's words joined by OR " +
        "(more occurrences in title and description rank higher). meta.total is exact; a page past the last " +
        "is empty.",
      content: { "application/json": { schema: envelopeSchema(z.array(SearchRowSchema)) } },
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
    return c.json(
      envelope(c, value.rows, {
        priceCents,
        paid: true,
        provenance: value.provenance,
        page: value.page,
        total: value.total,
        caveats: value.ceilings > 0 ? [FRAMEWORK_CEILING_CAVEAT] : undefined,
      }),
      200,
    );
  });
}
