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
 * No valid payment. `details` carries what a payment method wants added to the response (for x402: the
 * PAYMENT-REQUIRED requirements); the HTTP layer decides how to render it.
 */
export class PaymentRequiredError extends DomainError {
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(
    message: string,
    hint: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super("payment_required", message, hint);
    this.details = details;
    this.headers = headers;
  }
}
