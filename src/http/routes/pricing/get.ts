import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { getPricing, pricingInputOf } from "../../../domain/pricing/get-pricing.ts";
import type { HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelope, envelopeSchema } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";

export const PricingSchema = z
  .object({
    currency: z.literal("USD"),
    payments_mode: z.enum(["x402", "dev"]),
    endpoints: z.array(z.object({ endpoint: z.string(), price_usd: z.string(), free: z.boolean() })),
    billing: z.object({
      mechanism: z.literal("prepaid_credits"),
      bundles: z.array(z.object({ amount_usd: z.string(), endpoint: z.string() })),
      balance_endpoint: z.string(),
      usage: z.string(),
    }),
    subscription: z.object({
      available: z.boolean(),
      provider: z.string(),
      currency: z.literal("EUR"),
      price_monthly_cents: z.number().int(),
      price_monthly: z.string(),
      checkout_endpoint: z.string().nullable().openapi({
        description: "POST /v1/mor/checkout; null when no subscription is offered (available false).",
      }),
      mechanics: z.string(),
    }),
    payment_flow: z.object({
      protocol: z.literal("x402"),
      version: z.literal(2),
      steps: z.array(z.string()),
      required_header: z.literal("PAYMENT-REQUIRED"),
      signature_header: z.literal("PAYMENT-SIGNATURE"),
      header: z.literal("X-PAYMENT"),
      faucet: z.string().nullable().openapi({ description: "The dev faucet endpoint; null in production." }),
      x402: z
        .object({
          scheme: z.literal("exact"),
          network: z.string().openapi({ example: "eip155:84532", description: "CAIP-2 network." }),
          asset: z.string().openapi({ description: "Token contract address (USDC)." }),
          asset_symbol: z.string(),
          asset_decimals: z.literal(6),
          eip712_domain: z.object({ name: z.string(), version: z.string() }),
          pay_to: z.string().openapi({ description: "Address the payments go to." }),
          max_timeout_seconds: z.number().int(),
          v1_network: z.string().nullable().openapi({ description: "x402 v1 name of the network." }),
        })
        .optional()
        .openapi({ description: "x402 mode only: the terms every accepts[0] carries (amount = price)." }),
    }),
  })
  .openapi("Pricing");

const route = createRoute({
  method: "get",
  path: "/v1/pricing",
  operationId: "getPricing",
  tags: ["discovery"],
  summary: "Prices, payment methods and the payment flow (free)",
  responses: {
    200: {
      description: "The price of every endpoint this deployment serves and how to pay.",
      content: { "application/json": { schema: envelopeSchema(PricingSchema) } },
    },
    ...errorResponses(429, 500),
  },
});

export function registerGetPricing(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, (c) => {
    const pricing = getPricing({ input: pricingInputOf(deps) });
    return c.json(envelope(c, pricing, { priceCents: 0, paid: false }), 200);
  });
}
