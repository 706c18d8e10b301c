import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { centsToUsd } from "../../../lib/money.ts";
import { assertUsableClientKey, BUNDLE_AMOUNTS, bundleEntry } from "../../../payments/credits/credits.ts";
import type { HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { envelope, envelopeSchema } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { BUNDLE_SECURITY } from "../../openapi.ts";
import { servePaid } from "../../paid.ts";
import { BundleParamSchema, ClientKeyHeaderSchema, PurchaseSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/v1/billing/credits/{amount}",
  operationId: "buyCredits",
  tags: ["payments"],
  summary: "Buy a bundle of prepaid credits for a client key",
  description:
    "Credits the account named by header x-client-key (created on first purchase) with the bundle: 5, 10 or " +
    "25 USD, costing exactly that amount. Paid like any priced call with x402 (PAYMENT-SIGNATURE, or v1 " +
    "X-PAYMENT; in dev mode a faucet token for `POST /v1/billing/credits/<amount>`), never from a balance. " +
    "Credits never expire; afterwards send x-client-key on priced calls to pay from the balance.",
  security: BUNDLE_SECURITY,
  // The price of each bundle, from the price table (one operation sells several entries).
  "x-prices-usd": Object.fromEntries(
    BUNDLE_AMOUNTS.map((amount) => [amount, centsToUsd(bundleEntry(amount)?.priceCents ?? 0)]),
  ),
  request: { params: BundleParamSchema, headers: ClientKeyHeaderSchema },
  responses: {
    200: {
      description: "The bundle was credited; the account's new balance.",
      content: { "application/json": { schema: envelopeSchema(PurchaseSchema) } },
    },
    ...errorResponses(400, 402, 429, 500),
  },
});

export function registerBuyCredits(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { amount } = c.req.valid("param");
    const { "x-client-key": key } = c.req.valid("header");
    assertUsableClientKey(key);
    const entry = bundleEntry(amount);
    if (!entry) {
      throw new Error(`bundle ${amount} passed validation but is not in the price table`);
    }
    // The credit is the content: it is written only once the payment is final (settled), never before.
    const { priceCents } = await servePaid(c, deps, entry.endpoint, async () => entry);
    const data = await deps.payments.credits.creditPaidBundle({
      key,
      entry,
      requestId: c.get("requestId"),
      log: c.get("log"),
    });
    return c.json(envelope(c, data, { priceCents, paid: true }), 200);
  });
}
