import type { PaymentRequired } from "@x402/core/types";
import { PaymentRequiredError } from "../../domain/errors.ts";
import { FAUCET_ENDPOINT } from "../../domain/pricing/get-pricing.ts";
import { findPrice } from "../../domain/pricing/price-table.ts";
import { centsToUsd, centsToUsdcUnits } from "../../lib/money.ts";
import type { PaymentAttempt } from "../gate.ts";
import { bazaarExtension, compactBazaarExtension } from "../x402/bazaar.ts";
import { headerPaymentRequired } from "../x402/challenge.ts";

/**
 * The dev-mode 402 in x402's shape, so that a client written against dev mode works unchanged in x402 mode: the
 * same `PAYMENT-REQUIRED` header (base64 JSON `{x402Version: 2, error, resource, accepts, extensions}`) and the
 * same body fields, with one `accepts` entry of scheme `dev-faucet` that says how to get a token instead of how
 * to sign a transfer. A client picks the entry whose scheme it supports, as x402 clients do.
 *
 * The entry: `network` "dev", `asset` "USD", `amount` the price in millionths of a dollar (the units of x402
 * mode's USDC amounts, so amounts compare across modes), `payTo` the faucet URL, `maxTimeoutSeconds` the token
 * lifetime, and `extra` {faucet, faucet_url, faucet_body: {endpoint}, endpoint, header: "X-PAYMENT",
 * price_usd}: POST `faucet_body` to `faucet_url`, then retry with the token in `header`.
 */

export const DEV_SCHEME = "dev-faucet";

const MIME_TYPE = "application/json";

/** The refusal with its dev-mode challenge attached (the message and hint are the refusal's own). */
export function withDevChallenge(
  error: PaymentRequiredError,
  attempt: PaymentAttempt,
  tokenTtlSeconds: number,
): PaymentRequiredError {
  const faucetUrl = faucetUrlFor(attempt);
  const accepts = {
    scheme: DEV_SCHEME,
    network: "dev",
    asset: "USD",
    amount: centsToUsdcUnits(attempt.priceCents),
    payTo: faucetUrl,
    maxTimeoutSeconds: tokenTtlSeconds,
    extra: {
      faucet: FAUCET_ENDPOINT,
      faucet_url: faucetUrl,
      faucet_body: { endpoint: attempt.endpoint },
      endpoint: attempt.endpoint,
      header: "X-PAYMENT",
      price_usd: centsToUsd(attempt.priceCents),
    },
  };
  const resource = {
    url: attempt.resourceUrl,
    description: findPrice(attempt.endpoint)?.summary ?? attempt.endpoint,
    mimeType: MIME_TYPE,
  };
  const paymentRequired = headerPaymentRequired({
    x402Version: 2,
    error: attempt.credentials.xPayment === undefined ? "Payment required" : error.message,
    resource,
    // The library's type wants a CAIP-2 network; dev mode has none (a client that only knows "exact" skips it).
    accepts: [accepts as unknown as PaymentRequired["accepts"][number]],
    extensions: compactBazaarExtension(attempt.endpoint, attempt.resourceUrl, attempt.discovery),
  });
  const terms = {
    x402Version: 2,
    resource,
    accepts: [{ ...accepts, resource: attempt.resourceUrl }],
    hint: error.hint,
    extensions: bazaarExtension(attempt.endpoint, attempt.resourceUrl, attempt.discovery),
  };
  return new PaymentRequiredError(error.message, error.hint ?? "", {
    ...error.challenge,
    dev: { paymentRequired: paymentRequired as unknown as Record<string, unknown>, terms },
  });
}

/**
 * The faucet's URL under the same base as the resource: the resource URL minus the endpoint's path (behind a
 * proxy, PUBLIC_BASE_URL's prefix stays).
 */
function faucetUrlFor(attempt: PaymentAttempt): string {
  const url = new URL(attempt.resourceUrl);
  const depth = (attempt.endpoint.split(" ")[1] ?? "").split("/").filter(Boolean).length;
  const prefix = url.pathname.split("/").filter(Boolean).slice(0, -depth);
  const base = prefix.length > 0 ? `/${prefix.join("/")}` : "";
  return `${url.origin}${base}${FAUCET_ENDPOINT.split(" ")[1]}`;
}
