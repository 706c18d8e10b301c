import type { Db } from "../db/client.ts";
import { recordApiCall } from "../db/queries/api-calls.ts";
import { PaymentRequiredError } from "../domain/errors.ts";
import type { PaymentsMode } from "../domain/pricing/get-pricing.ts";
import type { Clock } from "../lib/clock.ts";
import { centsToUsd } from "../lib/money.ts";
import { createDevPaymentMethod, faucetHint, type IssuedDevToken, issueDevToken } from "./dev/dev-tokens.ts";
import {
  createPaymentGate,
  type PaidResult,
  type PaymentAttempt,
  type PaymentMethod,
  runPaid,
} from "./gate.ts";

export type { PaidResult, PaymentAttempt, PaymentCredentials } from "./gate.ts";

/** Everything the surfaces (REST, MCP) need from payments, built once from configuration. */
export interface Payments {
  mode: PaymentsMode;
  /** Authorises the attempt, produces the content, commits the charge and records the call. */
  charge<T>(attempt: PaymentAttempt, requestId: string, produce: () => Promise<T>): Promise<PaidResult<T>>;
  /** Dev mode only: a single-use token for one priced endpoint. */
  issueDevToken(endpoint: string): Promise<IssuedDevToken>;
}

export interface PaymentsDeps {
  db: Db;
  now: Clock;
  mode: PaymentsMode;
  devTokenTtlSeconds: number;
}

export function createPayments(deps: PaymentsDeps): Payments {
  const methods: PaymentMethod[] = deps.mode === "dev" ? [createDevPaymentMethod(deps)] : [];
  const gate = createPaymentGate({ methods, requirement: (attempt) => requirementFor(deps.mode, attempt) });
  return {
    mode: deps.mode,
    async charge(attempt, requestId, produce) {
      const result = await runPaid(gate, attempt, produce);
      await recordApiCall(deps.db, {
        endpoint: attempt.endpoint,
        method: result.method,
        priceCents: attempt.priceCents,
        status: 200,
        requestId,
        at: deps.now(),
      });
      return result;
    },
    issueDevToken(endpoint) {
      if (deps.mode !== "dev") {
        throw new Error("dev tokens exist only in PAYMENTS_MODE=dev");
      }
      return issueDevToken({ db: deps.db, now: deps.now, ttlSeconds: deps.devTokenTtlSeconds }, endpoint);
    },
  };
}

function requirementFor(mode: PaymentsMode, attempt: PaymentAttempt): PaymentRequiredError {
  const price = `${attempt.endpoint} costs ${centsToUsd(attempt.priceCents)} USD per call`;
  if (mode === "dev") {
    const sent = attempt.credentials.xPayment !== undefined;
    return new PaymentRequiredError(
      sent
        ? `${price}; the X-PAYMENT value is not a token issued by this service.`
        : `${price}; no payment was sent.`,
      faucetHint(attempt.endpoint),
    );
  }
  // x402 verification and settlement are not wired in yet: say so instead of pretending to accept payment.
  return new PaymentRequiredError(
    `${price}; this deployment runs PAYMENTS_MODE=x402 but has no x402 facilitator configured.`,
    "Payment is not possible on this deployment yet; see GET /v1/pricing and try again later.",
  );
}
