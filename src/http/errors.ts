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

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "invalid_query: a parameter violates its constraint; the message names it and the hint says how to fix it.",
  401: "unauthorized: the x-operator-key header is missing.",
  402: "payment_required: no valid payment, or the prepaid balance is exhausted.",
  403: "forbidden: the x-operator-key header does not match the operator key.",
  404: "not_found: no record with this id.",
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
        content: { "application/json": { schema: ErrorSchema } },
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
      { ...errorBody(error.code, error.message, error.hint), ...error.challenge.x402?.terms },
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
