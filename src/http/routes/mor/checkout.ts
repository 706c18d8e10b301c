import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { SubscriptionService } from "../../../payments/subscription/subscription.ts";
import type { AppEnv } from "../../env.ts";
import { errorResponses } from "../../errors.ts";
import { OptionalClientKeyHeaderSchema } from "../billing/schema.ts";

const CheckoutRequestSchema = z
  .object({
    email: z
      .string()
      .trim()
      .max(254)
      .pipe(z.email({ error: "an e-mail address such as name@example.com" }))
      .openapi({
        example: "buyer@example.com",
        description: "Where the provider sends receipts; stored as a lead.",
      }),
  })
  .openapi("CheckoutRequest");

const CheckoutResponseSchema = z
  .object({
    checkout_url: z.url().openapi({ description: "The provider's hosted checkout page: open it to pay." }),
    checkout_id: z.string().openapi({ description: "The provider's id of this checkout (Paddle: txn_…)." }),
    client_key: z.string().openapi({
      description:
        "The account's client key. Shown once (only its hash is stored): after payment send it as " +
        "X-PAYMENT on priced calls. Echoes the x-client-key header when one was sent.",
    }),
    key_created: z.boolean().openapi({ description: "true when the key was generated for this checkout." }),
    provider: z.string().openapi({ example: "paddle" }),
    currency: z.literal("EUR"),
    price_monthly_cents: z.number().int().openapi({ example: 2900 }),
    price_monthly: z.string().openapi({ example: "29.00" }),
    period_days: z.number().int().openapi({ example: 30 }),
    grant_cents: z.number().int().openapi({ description: "USD cents of credits granted once per payment." }),
    grant_usd: z.string(),
    next: z.string().openapi({ description: "What to do next." }),
  })
  .openapi("Checkout");

const route = createRoute({
  method: "post",
  path: "/v1/mor/checkout",
  operationId: "morCheckout",
  tags: ["payments"],
  summary: "Open a subscription checkout with the merchant-of-record provider",
  description:
    "Validates the e-mail address, stores it as a lead (status new), creates or reuses the account (the one " +
    "header x-client-key names, else a new one) and opens the provider's hosted checkout for one month. The " +
    "service never sees a card. After payment the key is a subscription key for 30 days (extending any time " +
    "left) with one-time credits. Served only when a provider is configured (404 otherwise).",
  request: {
    headers: OptionalClientKeyHeaderSchema,
    body: { required: true, content: { "application/json": { schema: CheckoutRequestSchema } } },
  },
  responses: {
    200: {
      description: "The checkout URL and the account's client key.",
      content: { "application/json": { schema: CheckoutResponseSchema } },
    },
    ...errorResponses(400, 429, 500),
  },
});

export function registerMorCheckout(app: OpenAPIHono<AppEnv>, subscription: SubscriptionService): void {
  app.openapi(route, async (c) => {
    const { email } = c.req.valid("json");
    const { "x-client-key": clientKey } = c.req.valid("header");
    const result = await subscription.openCheckout(
      clientKey === undefined ? { email } : { email, clientKey },
      c.get("log"),
    );
    // The key is a secret shown once: no cache may keep this answer.
    c.header("Cache-Control", "no-store");
    return c.json(result, 200);
  });
}
