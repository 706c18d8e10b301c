import { HTTPFacilitatorClient } from "@x402/core/server";
import type { Db } from "../../db/client.ts";
import type { PaymentRequiredError } from "../../domain/errors.ts";
import type { Clock } from "../../lib/clock.ts";
import type { PaymentAttempt, PaymentMethod } from "../gate.ts";
import { payHint, priceSentence, x402Challenge } from "./challenge.ts";
import { decodePaymentHeader } from "./decode.ts";
import { createX402PaymentMethod, type Facilitator } from "./method.ts";
import type { X402Settings } from "./settings.ts";

export type { Facilitator } from "./method.ts";
export { resolveX402Settings, type X402Settings } from "./settings.ts";

/** What the x402 method needs: storage, a clock, the resolved settings and (optionally) a facilitator. */
export interface X402Deps {
  db: Db;
  now: Clock;
  settings: X402Settings;
  /** Instance key of this process, recorded on each claim (payments/orphans.ts). */
  holder: () => number;
  /** Verifies and settles; default: the HTTP facilitator at X402_FACILITATOR_URL (tests inject one). */
  facilitator?: Facilitator;
}

/** The x402 payment method and the 402 it answers when no payment was recognised. */
export interface X402 {
  method: PaymentMethod;
  /** The 402 for a call no payment method recognised: the x402 requirements, saying what was (not) sent. */
  requirement(attempt: PaymentAttempt): PaymentRequiredError;
}

/** Builds the x402 method and requirement; production talks to `HTTPFacilitatorClient`. */
export function createX402(deps: X402Deps): X402 {
  const { settings } = deps;
  const facilitator = deps.facilitator ?? new HTTPFacilitatorClient({ url: settings.facilitatorUrl });
  return {
    method: createX402PaymentMethod({
      db: deps.db,
      now: deps.now,
      holder: deps.holder,
      settings,
      facilitator,
    }),
    requirement(attempt) {
      const price = priceSentence(settings, attempt);
      const pay = payHint(settings, attempt);
      const sent = attempt.credentials.xPayment;
      if (sent === undefined) {
        return x402Challenge(settings, attempt, {
          version: 2,
          message: `${price}; no payment was sent.`,
          hint: pay,
          reason: "Payment required",
        });
      }
      // X-PAYMENT reached here because no method took it: say what it is not.
      const decoded = decodePaymentHeader(sent, "X-PAYMENT");
      if (decoded.kind === "v2") {
        return x402Challenge(settings, attempt, {
          version: 2,
          message: `${price}; X-PAYMENT carries an x402 v2 payment payload.`,
          hint:
            "Send x402 v2 payloads in header PAYMENT-SIGNATURE (X-PAYMENT is for v1 payloads and keys). " +
            pay,
          reason: "invalid_payload",
        });
      }
      const problem = decoded.kind === "foreign" || decoded.kind === "invalid" ? ` (${decoded.message})` : "";
      return x402Challenge(settings, attempt, {
        version: 2,
        message:
          `${price}; the X-PAYMENT value is neither a key issued by this service nor an x402 v1 payment ` +
          `payload${problem}.`,
        hint: pay,
        reason: "invalid_payload",
      });
    },
  };
}
