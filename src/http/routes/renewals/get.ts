import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { listRenewals, RENEWALS_METHODOLOGY } from "../../../domain/renewals/list-renewals.ts";
import { CONFIDENCE_SCALE } from "../../../domain/renewals/signal.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelope } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { RenewalsQuerySchema } from "../../schemas/query.ts";
import { RenewalSignalSchema, RenewalsMetaSchema } from "./schema.ts";

const ENDPOINT = "GET /v1/renewals";

const route = createRoute({
  method: "get",
  path: "/v1/renewals",
  operationId: "listRenewals",
  tags: ["signals"],
  summary: "Re-tender forecast signals (deterministic heuristic, not probabilities)",
  ...pricedOperation(ENDPOINT),
  request: { query: RenewalsQuerySchema },
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
    const body = envelope(
      c,
      { signals: value.signals },
      {
        priceCents,
        paid: true,
        provenance: value.provenance,
      },
    );
    return c.json(
      {
        data: body.data,
        meta: {
          ...body.meta,
          page: value.page,
          total: value.total,
          methodology: RENEWALS_METHODOLOGY,
          confidence_scale: [...CONFIDENCE_SCALE],
          backtest: value.backtest,
        },
      },
      200,
    );
  });
}
