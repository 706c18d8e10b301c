import { z } from "@hono/zod-openapi";
import { CLIENT_KEY_PATTERN, CLIENT_KEY_RULE } from "../../../payments/credits/client-key.ts";
import { BUNDLE_AMOUNTS } from "../../../payments/credits/credits.ts";

const clientKey = z
  .string()
  .regex(CLIENT_KEY_PATTERN, { error: `a client key of ${CLIENT_KEY_RULE}` })
  .openapi({
    description:
      `The client key naming the prepaid account (${CLIENT_KEY_RULE}; keys starting lct_ are inert). ` +
      "Choose your own or use the one POST /v1/mor/checkout returned; only its SHA-256 is stored.",
    example: "my-agent-7f3c9a1e5b2d4c6f8a0b",
  });

export const ClientKeyHeaderSchema = z.object({ "x-client-key": clientKey });

export const OptionalClientKeyHeaderSchema = z.object({ "x-client-key": clientKey.optional() });

export const BundleParamSchema = z.object({
  amount: z.enum(BUNDLE_AMOUNTS as [string, ...string[]]).openapi({
    param: { name: "amount", in: "path" },
    description: "Bundle size in whole USD; the bundle costs exactly this amount.",
    example: "5",
  }),
});

export const BalanceSchema = z
  .object({
    kind: z.enum(["credits", "mor"]).openapi({
      description: "`credits`: prepaid only; `mor`: has (or had) a subscription paid through the provider.",
    }),
    balance_cents: z.number().int().openapi({ description: "Prepaid balance in USD cents.", example: 500 }),
    balance_usd: z.string().openapi({ description: "The same balance in decimal USD.", example: "5.00" }),
    trial_calls: z
      .number()
      .int()
      .openapi({ description: "Preserved trial calls, spent by a subscription key after its credits." }),
    subscription: z.object({
      active: z.boolean(),
      expires_at: z.iso
        .datetime()
        .nullable()
        .openapi({ description: "When the subscription ends (or ended); null if it was never paid." }),
    }),
    created_at: z.iso.datetime(),
  })
  .openapi("Balance");

export const PurchaseSchema = BalanceSchema.extend({
  credited_cents: z.number().int().openapi({ description: "Cents this purchase added.", example: 500 }),
  credited_usd: z.string().openapi({ example: "5.00" }),
}).openapi("CreditPurchase");
