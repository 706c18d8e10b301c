import type { Context } from "hono";
import { priceOf, priceUsd } from "../domain/pricing/price-table.ts";
import type { PaymentCredentials } from "../payments/index.ts";
import { baseUrl, type HttpDeps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { PRICED_SECURITY } from "./openapi.ts";
import { settlementHeaders } from "./payment-headers.ts";

/** Payment material from the request headers (names are case-insensitive in HTTP). */
export function credentialsFrom(c: Context<AppEnv>): PaymentCredentials {
  const credentials: PaymentCredentials = {};
  const xPayment = c.req.header("x-payment");
  const paymentSignature = c.req.header("payment-signature");
  const clientKey = c.req.header("x-client-key");
  if (xPayment) {
    credentials.xPayment = xPayment.trim();
  }
  if (paymentSignature) {
    credentials.paymentSignature = paymentSignature.trim();
  }
  if (clientKey) {
    credentials.clientKey = clientKey.trim();
  }
  return credentials;
}

/**
 * Runs a priced handler body behind the payment gate. Called after validation, so an invalid request is
 * answered 400 and costs nothing. Returns the produced value and the price charged, for the envelope.
 */
export async function servePaid<T>(
  c: Context<AppEnv>,
  deps: HttpDeps,
  endpoint: string,
  produce: () => Promise<T>,
): Promise<{ value: T; priceCents: number }> {
  const entry = priceOf(endpoint);
  const delayMs = testPaidDelayMs(c, deps);
  const result = await deps.payments.charge(
    {
      endpoint: entry.endpoint,
      priceCents: entry.priceCents,
      credentials: credentialsFrom(c),
      resourceUrl: publicUrl(c, deps),
      discovery: deps.describeEndpoint?.(entry.endpoint),
    },
    c.get("requestId"),
    delayMs > 0 ? () => sleep(delayMs).then(produce) : produce,
  );
  for (const [name, value] of Object.entries(settlementHeaders(result.settlement))) {
    c.header(name, value);
  }
  return { value: result.value, priceCents: entry.priceCents };
}

/**
 * The test-only delay hook: with `TEST_PAID_DELAY_MAX_MS` set (config refuses it unless NODE_ENV=test), a paid
 * call carrying `x-test-paid-delay-ms: N` waits min(N, max) ms after its payment is taken and before its
 * answer is produced, so a test can kill the process while calls hold payments (test/e2e/fleet.test.ts).
 */
function testPaidDelayMs(c: Context<AppEnv>, deps: HttpDeps): number {
  const max = deps.config.TEST_PAID_DELAY_MAX_MS;
  const asked = max === undefined ? Number.NaN : Number(c.req.header("x-test-paid-delay-ms"));
  return max !== undefined && Number.isInteger(asked) && asked > 0 ? Math.min(asked, max) : 0;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The request's URL as clients address it: behind a proxy, PUBLIC_BASE_URL's origin and prefix. */
function publicUrl(c: Context<AppEnv>, deps: HttpDeps): string {
  const url = new URL(c.req.url);
  return deps.config.PUBLIC_BASE_URL ? `${baseUrl(c, deps)}${url.pathname}${url.search}` : url.toString();
}

/** OpenAPI fields of a priced operation: the security scheme and the price, from the one price table. */
export function pricedOperation(endpoint: string) {
  const entry = priceOf(endpoint);
  const price = priceUsd(entry);
  return {
    security: PRICED_SECURITY,
    "x-price-usd": price,
    description: `${entry.summary}\n\nPrice: ${price} USD per call (x402, prepaid credits or subscription).`,
  };
}
