import { timingSafeEqual } from "node:crypto";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DomainError } from "../../../domain/errors.ts";
import { getOperatorStats } from "../../../domain/stats/get-operator-stats.ts";
import { sha256Hex } from "../../../lib/ids.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelope, envelopeSchema } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";

const windowCounts = { last_24h: z.number().int(), last_7d: z.number().int(), all_time: z.number().int() };

const StatsSchema = z
  .object({
    generated_at: z.iso.datetime(),
    sources: z.array(
      z.object({
        source: z.enum(["placsp", "ted"]),
        tenders: z.number().int().openapi({ description: "Tenders held (not withdrawn)." }),
        awards: z.number().int(),
        last_ingestion: z
          .object({
            status: z.string().openapi({ description: "running, succeeded or failed." }),
            started_at: z.iso.datetime(),
            finished_at: z.iso.datetime().nullable(),
            entries_new: z.number().int(),
            entries_updated: z.number().int(),
            errors: z.number().int(),
          })
          .nullable()
          .openapi({ description: "The most recent ingest run of the source; null if none ran." }),
        last_success_at: z.iso.datetime().nullable(),
      }),
    ),
    calls: z
      .array(z.object({ endpoint: z.string(), method: z.string(), ...windowCounts }))
      .openapi({ description: "Paid calls served, per endpoint and payment method (x402, credits, …)." }),
    revenue: z
      .array(
        z.object({
          method: z.string().openapi({ description: "x402 or dev (per call, bundles included) or mor." }),
          currency: z.string().openapi({ description: "USD for per-call payments; the provider's for mor." }),
          last_24h_cents: z.number().int(),
          last_7d_cents: z.number().int(),
          all_time_cents: z.number().int(),
        }),
      )
      .openapi({
        description:
          "Money taken, by method. Calls paid from a balance are not revenue (it came in with the bundle or " +
          "the subscription payment).",
      }),
    accounts: z.object({
      credits: z.number().int(),
      mor: z.number().int(),
      mor_active: z.number().int().openapi({ description: "Subscription accounts not expired." }),
      balance_cents: z.number().int().openapi({ description: "Outstanding prepaid balances, USD cents." }),
    }),
    leads: z.object({
      new: z.number().int(),
      contacted: z.number().int(),
      used: z.number().int(),
      paid: z.number().int(),
      lost: z.number().int(),
    }),
  })
  .openapi("OperatorStats");

const route = createRoute({
  method: "get",
  path: "/v1/stats",
  operationId: "getStats",
  tags: ["discovery"],
  summary: "Operator statistics (free; needs x-operator-key)",
  description:
    "Records and last ingestion per source, paid calls per endpoint and payment method and revenue by " +
    "method over 24 h, 7 d and all time, accounts by kind, leads by status. 401 without x-operator-key, 403 " +
    "with a wrong one; absent (404) when the deployment has no OPERATOR_KEY.",
  request: {
    headers: z.object({
      "x-operator-key": z.string().optional().openapi({ description: "The operator key." }),
    }),
  },
  responses: {
    200: {
      description: "The statistics.",
      content: { "application/json": { schema: envelopeSchema(StatsSchema) } },
    },
    ...errorResponses(401, 403, 429, 500),
  },
});

/** Constant-time: equal-length digests are compared, so neither length nor content leaks through timing. */
function sameKey(given: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(sha256Hex(given), "hex"), Buffer.from(sha256Hex(expected), "hex"));
}

export function registerGetStats(app: OpenAPIHono<AppEnv>, deps: HttpDeps, operatorKey: string): void {
  app.openapi(route, async (c) => {
    const { "x-operator-key": given } = c.req.valid("header");
    if (given === undefined || given === "") {
      throw new DomainError(
        "unauthorized",
        "The x-operator-key header is missing.",
        "Send x-operator-key: <OPERATOR_KEY>.",
      );
    }
    if (!sameKey(given, operatorKey)) {
      throw new DomainError(
        "forbidden",
        "The x-operator-key header is not the operator key.",
        "Check OPERATOR_KEY.",
      );
    }
    const stats = await getOperatorStats({ ctx: domainContext(c, deps) });
    return c.json(envelope(c, stats, { priceCents: 0, paid: false }), 200);
  });
}
