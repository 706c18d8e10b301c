import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { PaymentRequiredError } from "../../domain/errors.ts";
import { findPrice } from "../../domain/pricing/price-table.ts";
import { centsToUsd, centsToUsdcUnits } from "../../lib/money.ts";
import type { PaymentAttempt } from "../gate.ts";
import { bazaarExtension, compactBazaarExtension } from "./bazaar.ts";
import type { X402Settings } from "./settings.ts";

/**
 * The x402 402 answer. One response serves both protocol versions:
 *
 * - header `PAYMENT-REQUIRED`: always the v2 `PaymentRequired` (`{x402Version: 2, error, resource, accepts,
 *   extensions}`), which v2 clients (`@x402/fetch`) read first;
 * - body: the spec's error envelope `{error: {code, message, hint}}` plus, at top level, `x402Version`,
 *   `resource {url, description, mimeType}`, `accepts` (each entry also carrying `resource`), `hint` and
 *   `extensions.bazaar`. The body speaks v2 (CAIP-2 network, `amount`) unless the caller showed it speaks v1
 *   (it sent a v1 payload in `X-PAYMENT`): then `x402Version` is 1 and `accepts` holds the v1 requirement
 *   (`base-sepolia`, `maxAmountRequired`, `resource` URL, …), which is what v1 clients read.
 */

/** The x402 version a caller speaks, which decides the body it can read. */
export type ProtocolVersion = 1 | 2;

/** x402 v1 payment requirements (v1 network names are not CAIP-2, so the library's v1 type does not fit). */
export interface RequirementsV1 {
  scheme: "exact";
  network: string;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  outputSchema: Record<string, unknown> | null;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: Record<string, unknown>;
}

const MIME_TYPE = "application/json";

/** The exact v2 requirement for an attempt: the endpoint's price in atomic units of the configured asset. */
export function requirementsV2(settings: X402Settings, attempt: PaymentAttempt): PaymentRequirements {
  return {
    scheme: "exact",
    network: settings.network,
    asset: settings.asset,
    amount: centsToUsdcUnits(attempt.priceCents),
    payTo: settings.payTo,
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    extra: { name: settings.eip712.name, version: settings.eip712.version },
  };
}

/** The same requirement in x402 v1 terms; undefined when v1 has no name for the configured network. */
export function requirementsV1(settings: X402Settings, attempt: PaymentAttempt): RequirementsV1 | undefined {
  if (!settings.v1Network) {
    return undefined;
  }
  return {
    scheme: "exact",
    network: settings.v1Network,
    maxAmountRequired: centsToUsdcUnits(attempt.priceCents),
    resource: attempt.resourceUrl,
    description: describeEndpoint(attempt.endpoint),
    mimeType: MIME_TYPE,
    // v1's informal discovery field: the method, so v1 catalogs can list the resource.
    outputSchema: { input: { type: "http", method: attempt.endpoint.split(" ")[0], discoverable: true } },
    payTo: settings.payTo,
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    asset: settings.asset,
    extra: { name: settings.eip712.name, version: settings.eip712.version },
  };
}

/** What a 402 says beyond the requirement itself. */
export interface ChallengeInput {
  /** Which body the caller can read (see the module comment). */
  version: ProtocolVersion;
  message: string;
  hint: string;
  /** Machine-readable reason for the `error` field of PAYMENT-REQUIRED (defaults to the message). */
  reason?: string;
  /** A failed settlement, returned in PAYMENT-RESPONSE (v2) or X-PAYMENT-RESPONSE (v1). */
  settlement?: SettleResponse;
  /** Seconds after which a retry may succeed (facilitator unreachable). */
  retryAfterSeconds?: number;
}

/**
 * The refusal as a `PaymentRequiredError` carrying the requirement as plain data: REST renders it as the 402
 * (body and PAYMENT-REQUIRED header), MCP as tool content.
 */
export function x402Challenge(
  settings: X402Settings,
  attempt: PaymentAttempt,
  input: ChallengeInput,
): PaymentRequiredError {
  const accepts = requirementsV2(settings, attempt);
  const resource = {
    url: attempt.resourceUrl,
    description: describeEndpoint(attempt.endpoint),
    mimeType: MIME_TYPE,
  };
  const extensions = bazaarExtension(attempt.endpoint, attempt.resourceUrl, attempt.discovery);
  const paymentRequired = headerPaymentRequired({
    x402Version: 2,
    error: input.reason ?? input.message,
    resource,
    accepts: [accepts],
    extensions: compactBazaarExtension(attempt.endpoint, attempt.resourceUrl, attempt.discovery),
  });
  const v1 = input.version === 1 ? requirementsV1(settings, attempt) : undefined;
  const terms: Record<string, unknown> = v1
    ? {
        x402Version: 1,
        resource,
        accepts: [{ ...v1, amount: v1.maxAmountRequired }],
        hint: input.hint,
        extensions,
      }
    : {
        x402Version: 2,
        resource,
        accepts: [{ ...accepts, resource: attempt.resourceUrl }],
        hint: input.hint,
        extensions,
      };
  return new PaymentRequiredError(input.message, input.hint, {
    x402: { paymentRequired: paymentRequired as unknown as Record<string, unknown>, terms },
    settlement: input.settlement
      ? { x402Version: input.version, response: input.settlement as unknown as Record<string, unknown> }
      : undefined,
    retryAfterSeconds: input.retryAfterSeconds,
  });
}

/**
 * Largest `PAYMENT-REQUIRED` value sent, in bytes of base64. Proxies hold all of a response's headers in one
 * buffer (nginx `proxy_buffer_size`: 4 KB by default) and turn an overflow into a 502; 3 KB leaves room for the
 * status line and the other headers (request id, CORS, rate limit, content type).
 */
export const PAYMENT_REQUIRED_HEADER_BUDGET = 3072;

/**
 * The object sent in `PAYMENT-REQUIRED`: `x402Version`, `error`, `resource` and the full `accepts` (what clients
 * sign) always; the compact bazaar declaration when it fits the budget (a long search URL can push it out; the
 * body still carries the full declaration).
 */
export function headerPaymentRequired(paymentRequired: PaymentRequired): PaymentRequired {
  if (base64Length(paymentRequired) <= PAYMENT_REQUIRED_HEADER_BUDGET) {
    return paymentRequired;
  }
  const { extensions: _dropped, ...rest } = paymentRequired;
  return rest;
}

function base64Length(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value), "utf8") / 3) * 4;
}

/** "GET /v1/tenders/:id costs 0.02 USD per call (20000 atomic units of USDC on eip155:84532)". */
export function priceSentence(settings: X402Settings, attempt: PaymentAttempt): string {
  return (
    `${attempt.endpoint} costs ${centsToUsd(attempt.priceCents)} USD per call ` +
    `(${centsToUsdcUnits(attempt.priceCents)} atomic units of ${settings.assetSymbol} on ${settings.network})`
  );
}

/** How to pay, for hints: the one requirement spelled out. */
export function payHint(settings: X402Settings, attempt: PaymentAttempt): string {
  return (
    `Sign an EIP-3009 transferWithAuthorization of ${centsToUsdcUnits(attempt.priceCents)} atomic units of ` +
    `${settings.assetSymbol} (${settings.asset}) to ${settings.payTo} on ${settings.network} ` +
    "(accepts[0] of this answer) and retry the same request with header PAYMENT-SIGNATURE: <base64 payment " +
    "payload>; x402 v1 clients send X-PAYMENT. Each payment proof pays for one call."
  );
}

function describeEndpoint(endpoint: string): string {
  return findPrice(endpoint)?.summary ?? endpoint;
}
