import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DomainError, type ErrorCode, PaymentRequiredError } from "../domain/errors.ts";
import { describeIssues } from "../domain/validation.ts";
import type { AppEnv } from "./env.ts";
import { challengeHeaders } from "./payment-headers.ts";

/** The spec's error codes and their HTTP statuses: the one map every surface uses. */
export const ERROR_STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_query: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  internal: 500,
};

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      hint: z
        .string()
        .optional()
        .openapi({ description: "What to do next (written for agents and people)." }),
    }),
  })
  .openapi("Error");

/** One way to pay, as an entry of `accepts` (x402 `PaymentRequirements`, plus `resource` as the spec lists). */
const PaymentRequirementSchema = z
  .object({
    scheme: z.string().openapi({
      description:
        "`exact` (x402: sign an EIP-3009 transferWithAuthorization) or, in dev mode, `dev-faucet` (get a token " +
        "from extra.faucet_url with body extra.faucet_body, send it in header extra.header).",
    }),
    network: z
      .string()
      .openapi({ description: "CAIP-2 network (v1 bodies: the v1 name); `dev` in dev mode." }),
    asset: z.string().openapi({ description: "Token contract address; `USD` in dev mode." }),
    amount: z
      .string()
      .openapi({ description: "Price in atomic units (USDC: 6 decimals; dev mode the same units)." }),
    payTo: z.string().openapi({ description: "Recipient address; in dev mode the faucet URL." }),
    maxTimeoutSeconds: z.number().int(),
    extra: z.record(z.string(), z.unknown()).openapi({
      description:
        "exact: the token's EIP-712 domain {name, version}. dev-faucet: {faucet, faucet_url, faucet_body, " +
        "endpoint, header, price_usd}.",
    }),
    resource: z.string().openapi({ description: "URL of the resource being paid for." }),
    maxAmountRequired: z.string().optional().openapi({ description: "x402 v1 bodies only: the amount." }),
    description: z.string().optional().openapi({ description: "x402 v1 bodies only." }),
    mimeType: z.string().optional().openapi({ description: "x402 v1 bodies only." }),
    outputSchema: z.record(z.string(), z.unknown()).nullable().optional().openapi({
      description: "x402 v1 bodies only.",
    }),
  })
  .openapi("PaymentRequirement");

/**
 * The body of every 402: the error envelope plus the x402 terms (SPEC.md, Errors). Dev mode has the same shape,
 * with a `dev-faucet` entry in `accepts`.
 */
export const PaymentRequiredSchema = ErrorSchema.extend({
  x402Version: z.union([z.literal(1), z.literal(2)]).openapi({
    description: "2, or 1 once the caller has sent an x402 v1 payload in X-PAYMENT.",
  }),
  resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }),
  accepts: z.array(PaymentRequirementSchema).min(1),
  hint: z.string().openapi({ description: "The same as error.hint." }),
  extensions: z
    .object({
      bazaar: z
        .object({ info: z.record(z.string(), z.unknown()), schema: z.record(z.string(), z.unknown()) })
        .passthrough()
        .openapi({
          description:
            "x402 catalog discovery: what the endpoint takes and returns (examples and JSON Schema). The " +
            "PAYMENT-REQUIRED header carries a compact version.",
        }),
    })
    .passthrough(),
}).openapi("PaymentRequired");

/** Headers of a 402 (see http/payment-headers.ts). */
const PAYMENT_REQUIRED_HEADERS = {
  "PAYMENT-REQUIRED": {
    required: true,
    description:
      "Base64 of the UTF-8 JSON x402 v2 PaymentRequired: {x402Version: 2, error, resource {url, description, " +
      "mimeType}, accepts [{scheme, network, asset, amount, payTo, maxTimeoutSeconds, extra}], extensions: " +
      "{bazaar} (compact; the body has the full declaration, and it is left out when it would not fit)}. Pick " +
      "the accepts entry whose scheme you support. Kept under 3 KB so proxies' header buffers hold it.",
    schema: { type: "string", contentEncoding: "base64" },
  },
  "Retry-After": {
    description:
      "Seconds after which the same payment may succeed (only when the facilitator was unreachable).",
    schema: { type: "integer", minimum: 0 },
  },
} as const;

const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": {
    description: "Requests a client may make at once (the token bucket's size).",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": {
    description: "Requests left in the bucket after this one.",
    schema: { type: "integer" },
  },
  "RateLimit-Reset": {
    description: "Seconds until the bucket is full again.",
    schema: { type: "integer" },
  },
  "RateLimit-Policy": {
    description: 'The refill rate: "<requests>;w=60" (requests per 60-second window).',
    schema: { type: "string" },
  },
} as const;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "invalid_query: a parameter violates its constraint; the message names it and the hint says how to fix it.",
  401: "unauthorized: the x-operator-key header is missing.",
  402:
    "payment_required: no valid payment, or the prepaid balance is exhausted. The PAYMENT-REQUIRED header and " +
    "the body's accepts say how to pay (x402 scheme exact; dev mode: scheme dev-faucet).",
  403: "forbidden: the x-operator-key header does not match the operator key.",
  404: "not_found: no record with this id, or no data is loaded yet (nothing was charged).",
  429: "rate_limited: too many requests; retry after the Retry-After header.",
  500: "internal: server error; nothing was charged.",
};

/** OpenAPI response objects for the error statuses a route can answer. */
export function errorResponses(...statuses: (400 | 401 | 402 | 403 | 404 | 429 | 500)[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: ERROR_DESCRIPTIONS[status] ?? "error",
        ...(status === 402 ? { headers: PAYMENT_REQUIRED_HEADERS } : {}),
        ...(status === 429
          ? {
              headers: {
                "Retry-After": {
                  required: true,
                  description: "Whole seconds until a request would be accepted.",
                  schema: { type: "integer", minimum: 1 },
                },
                ...RATE_LIMIT_HEADERS,
              },
            }
          : {}),
        content: { "application/json": { schema: status === 402 ? PaymentRequiredSchema : ErrorSchema } },
      },
    ]),
  );
}

export function errorBody(code: ErrorCode, message: string, hint?: string) {
  return { error: hint === undefined ? { code, message } : { code, message, hint } };
}

export function errorResponse(c: Context<AppEnv>, code: ErrorCode, message: string, hint?: string): Response {
  return c.json(errorBody(code, message, hint), ERROR_STATUS[code]);
}

/**
 * The app's onError: our own errors map by code; Hono's HTTP exceptions (malformed JSON, oversized bodies) are
 * client errors in the same envelope; anything else is logged with its stack and answered with a generic 500
 * that never leaks internals.
 */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof PaymentRequiredError) {
    for (const [name, value] of Object.entries(challengeHeaders(error.challenge))) {
      c.header(name, value);
    }
    return c.json(
      {
        ...errorBody(error.code, error.message, error.hint),
        ...(error.challenge.x402 ?? error.challenge.dev)?.terms,
      },
      402,
    );
  }
  if (error instanceof DomainError) {
    return errorResponse(c, error.code, error.message, error.hint);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return errorResponse(c, "invalid_query", clientErrorMessage(error), clientErrorHint(error));
  }
  const requestId = c.get("requestId");
  c.get("log").error({ err: error }, "unhandled error");
  return errorResponse(
    c,
    "internal",
    "Internal server error.",
    `Retry later; nothing was charged. If it persists, report request id ${requestId}.`,
  );
}

function clientErrorMessage(error: HTTPException): string {
  if (error.status === 413) {
    return `Request body is larger than ${BODY_LIMIT_BYTES} bytes.`;
  }
  return error.message || "Malformed request.";
}

function clientErrorHint(error: HTTPException): string {
  if (error.status === 413) {
    return `Send a JSON body of at most ${BODY_LIMIT_BYTES} bytes.`;
  }
  if (/json/i.test(error.message)) {
    return "Send a valid JSON object with header Content-Type: application/json.";
  }
  return "Check the request against GET /openapi.json.";
}

export const BODY_LIMIT_BYTES = 64 * 1024;

type ValidationTarget = "query" | "param" | "json" | "header" | "form" | "cookie";

const TARGET_NAMES: Record<ValidationTarget, string> = {
  query: "query parameter",
  param: "path parameter",
  json: "body field",
  header: "header",
  form: "form field",
  cookie: "cookie",
};

/**
 * Turns zod issues into the spec's 400: the message names each parameter and its constraint, the hint says how
 * to fix the first one (domain/validation.ts words it, for MCP arguments as well).
 */
export function describeValidationFailure(
  issues: readonly z.core.$ZodIssue[],
  target: ValidationTarget,
  rawValue: (name: string) => unknown,
): { message: string; hint: string } {
  return describeIssues(issues, {
    where: TARGET_NAMES[target],
    whole: target === "json" ? "body" : target,
    wholeHint: target === "json" ? "Send a JSON object as described in GET /openapi.json." : undefined,
    reference: "GET /openapi.json",
    rawValue,
  });
}
