/**
 * Errors a domain verb can raise. Each surface maps them to its own transport: HTTP to the spec's error
 * envelope and status codes (http/errors.ts), MCP to tool results. `hint` always tells the caller what to do.
 */
export type ErrorCode =
  | "invalid_query"
  | "unauthorized"
  | "payment_required"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "rate_limited"
  | "internal";

export class DomainError extends Error {
  override name = "DomainError";
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.code = code;
    this.hint = hint;
  }
}

export class InvalidInputError extends DomainError {
  constructor(message: string, hint: string) {
    super("invalid_query", message, hint);
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string, hint: string) {
    super("not_found", message, hint);
  }
}

/**
 * What an x402 payment requirement looks like, whatever the transport: REST renders it as the 402 body and the
 * `PAYMENT-REQUIRED` header, MCP as tool content (and `_meta`). Plain data, so the domain does not depend on the
 * x402 library.
 */
export interface X402Challenge {
  /** The v2 `PaymentRequired` object (`{x402Version: 2, error, resource, accepts, extensions}`). */
  paymentRequired: Record<string, unknown>;
  /**
   * The fields a caller reads beside the error (`x402Version`, `resource`, `accepts`, `hint`, `extensions`), in
   * the protocol version the caller speaks.
   */
  terms: Record<string, unknown>;
}

/** A settlement made (or failed) by the facilitator, in the protocol version the payer used. */
export interface PaymentSettlement {
  x402Version: 1 | 2;
  /** The x402 `SettleResponse`: success, transaction, network, payer, errorReason. */
  response: Record<string, unknown>;
}

/** Why and how to pay, as a value each transport renders its own way (REST: 402; MCP: tool content). */
export interface PaymentChallenge {
  /** The x402 requirement, when the deployment takes x402 payments (absent in dev mode). */
  x402?: X402Challenge;
  /**
   * Dev mode: the same shape with a `dev-faucet` accepts entry (how to get a token), so REST answers the same
   * 402 header and body in both modes. MCP keeps its own faucet instructions (`how_to_pay`).
   */
  dev?: X402Challenge;
  /** A failed settlement to report back to the payer. */
  settlement?: PaymentSettlement;
  /** Seconds after which the same payment may succeed (facilitator unreachable). */
  retryAfterSeconds?: number;
}

/**
 * No valid payment. `challenge` says how to pay (for x402: the requirements); the surface decides how to render
 * it (http/errors.ts: the 402 with headers; mcp: `{payment_required: true, …}` tool content).
 */
export class PaymentRequiredError extends DomainError {
  readonly challenge: PaymentChallenge;
  constructor(message: string, hint: string, challenge: PaymentChallenge = {}) {
    super("payment_required", message, hint);
    this.challenge = challenge;
  }
}
