import { z } from "@hono/zod-openapi";
import { BundleAmountParam, ClientKeyParam } from "../../../payments/credits/inputs.ts";

const clientKey = ClientKeyParam;

export const ClientKeyHeaderSchema = z.object({ "x-client-key": clientKey });

export const OptionalClientKeyHeaderSchema = z.object({ "x-client-key": clientKey.optional() });

export const BundleParamSchema = z.object({
  amount: BundleAmountParam.meta({ param: { name: "amount", in: "path" } }),
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
