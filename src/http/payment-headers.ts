import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import type { PaymentChallenge, PaymentSettlement } from "../domain/errors.ts";

/**
 * x402's HTTP transport: a payment challenge or settlement as response headers. The payment layer hands over
 * plain values (domain/errors.ts); only here do they become `PAYMENT-REQUIRED` / `PAYMENT-RESPONSE` (v1:
 * `X-PAYMENT-RESPONSE`) headers, so MCP can render the same values as tool content instead.
 */

/** Headers of a 402: the requirement (never cached), a failed settlement, and when to retry. */
export function challengeHeaders(challenge: PaymentChallenge): Record<string, string> {
  const headers: Record<string, string> = {};
  const required = challenge.x402 ?? challenge.dev;
  if (required) {
    headers["PAYMENT-REQUIRED"] = encodePaymentRequiredHeader(
      required.paymentRequired as unknown as PaymentRequired,
    );
    headers["Cache-Control"] = "no-store";
  }
  if (challenge.settlement) {
    Object.assign(headers, settlementHeader(challenge.settlement));
  }
  if (challenge.retryAfterSeconds !== undefined) {
    headers["Retry-After"] = String(challenge.retryAfterSeconds);
  }
  return headers;
}

/** Headers of a paid answer: the settlement, and `Cache-Control: private` (the answer was bought by one caller). */
export function settlementHeaders(settlement: PaymentSettlement | undefined): Record<string, string> {
  return settlement ? { ...settlementHeader(settlement), "Cache-Control": "private" } : {};
}

function settlementHeader(settlement: PaymentSettlement): Record<string, string> {
  const name = settlement.x402Version === 1 ? "X-PAYMENT-RESPONSE" : "PAYMENT-RESPONSE";
  return { [name]: encodePaymentResponseHeader(settlement.response as unknown as SettleResponse) };
}
