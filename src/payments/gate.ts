import { DomainError, type PaymentRequiredError, type PaymentSettlement } from "../domain/errors.ts";

/**
 * The payment gate every priced call goes through, REST and MCP alike. Methods are tried in order
 * (subscription → credits → x402 → dev token, as later methods are added); the first method that recognises the
 * caller's credentials decides. A method that recognises them but refuses them throws `PaymentRequiredError` with
 * a hint saying what was wrong; when no method recognises anything, the gate answers with the requirement of the
 * configured mode.
 *
 * Authorisation is provisional: the content is produced only after it, and the charge is then committed
 * (settled) before anything is served, or released when nothing is served (404, 5xx). Nobody gets data without
 * paying, nobody pays without getting data.
 */

export type PaymentMethodName = "dev" | "x402" | "credits" | "subscription";

export interface PaymentAttempt {
  /** Spec endpoint name, e.g. `GET /v1/tenders/:id`. */
  endpoint: string;
  priceCents: number;
  credentials: PaymentCredentials;
  /** The resource being paid for, as the caller addressed it (x402 `resource.url`). */
  resourceUrl: string;
  /** What the endpoint takes and returns, when the surface can say (x402 catalog discovery, bazaar). */
  discovery?: EndpointDiscovery;
}

/**
 * An endpoint's input and output as JSON Schema fragments with examples, supplied by the surface that serves
 * it (REST: derived from the OpenAPI document), so payment requirements can describe what is being bought.
 */
export interface EndpointDiscovery {
  /** Query parameters: example values and `{properties, required}`. */
  query?: { example: Record<string, unknown>; schema: Record<string, unknown> };
  /** JSON request body: an example and its schema. */
  body?: { example: Record<string, unknown>; schema: Record<string, unknown> };
  /** The 200 JSON response: an example and its schema. */
  output?: { example: Record<string, unknown>; schema: Record<string, unknown> };
}

/** Payment material as the caller sent it, whatever the transport (HTTP headers, MCP tool arguments). */
export interface PaymentCredentials {
  /** `X-PAYMENT`: dev token, subscription key or x402 v1 payload. */
  xPayment?: string;
  /** `PAYMENT-SIGNATURE`: x402 v2 payload. */
  paymentSignature?: string;
  /** `x-client-key`: prepaid credit account. */
  clientKey?: string;
}

export interface Charge {
  method: PaymentMethodName;
  /**
   * Makes the payment final. Throws `PaymentRequiredError` if it cannot (then nothing may be served). An x402
   * charge returns its settlement, which the surface hands back to the payer.
   */
  commit(): Promise<{ settlement?: PaymentSettlement }>;
  /** Undoes the provisional payment: the caller is not charged. */
  release(): Promise<void>;
}

/**
 * A commit that found its payment already given back: this process lost its database session (and with it
 * the instance lock that marks its payments as in flight), and another process's orphan sweep refunded the
 * payment. Nothing is charged, so nothing may be served.
 */
export function paymentHoldLost(what: string): DomainError {
  return new DomainError(
    "internal",
    `The ${what} paying for this call was given back before the answer was ready (the server lost its ` +
      "database session); nothing was charged.",
    "Retry the same request; the payment is usable again.",
  );
}

export interface PaymentMethod {
  name: PaymentMethodName;
  /** A charge when the credentials are this method's and valid; undefined when they are not this method's. */
  authorize(attempt: PaymentAttempt): Promise<Charge | undefined>;
}

export interface PaymentGate {
  authorize(attempt: PaymentAttempt): Promise<Charge>;
}

export interface GateOptions {
  methods: PaymentMethod[];
  /** The 402 for a call that carries no usable payment, in the configured mode's terms. */
  requirement(attempt: PaymentAttempt): PaymentRequiredError;
}

export function createPaymentGate(options: GateOptions): PaymentGate {
  return {
    async authorize(attempt) {
      for (const method of options.methods) {
        const charge = await method.authorize(attempt);
        if (charge) {
          return charge;
        }
      }
      throw options.requirement(attempt);
    },
  };
}

export interface PaidResult<T> {
  value: T;
  method: PaymentMethodName;
  /** x402: the settlement to return to the payer (REST: PAYMENT-RESPONSE header; MCP: result `_meta`). */
  settlement?: PaymentSettlement;
}

/**
 * Authorises, produces the content, then commits the charge. If producing throws (not found, internal error)
 * the charge is released and the error propagates; if committing fails nothing is returned.
 */
export async function runPaid<T>(
  gate: PaymentGate,
  attempt: PaymentAttempt,
  produce: () => Promise<T>,
): Promise<PaidResult<T>> {
  const charge = await gate.authorize(attempt);
  let value: T;
  try {
    value = await produce();
  } catch (error) {
    await charge.release();
    throw error;
  }
  const { settlement } = await charge.commit();
  return { value, method: charge.method, settlement };
}
