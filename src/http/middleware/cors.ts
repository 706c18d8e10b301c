import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../env.ts";

/**
 * CORS for browser clients, any origin (no cookies: every credential is a header the caller sends). Preflights
 * (`OPTIONS`) are answered 204 with the methods and the headers that pay (`PAYMENT-SIGNATURE`, `X-PAYMENT`,
 * `x-client-key`); answers expose the headers a paying client must read: the payment requirement and
 * settlement, when to retry, the rate limit, and the request id.
 */
export const CORS_ALLOW_HEADERS = [
  "Content-Type",
  "PAYMENT-SIGNATURE",
  "X-PAYMENT",
  "x-client-key",
  "X-Request-Id",
  "Mcp-Protocol-Version",
];

export const CORS_EXPOSE_HEADERS = [
  "PAYMENT-REQUIRED",
  "PAYMENT-RESPONSE",
  "X-PAYMENT-RESPONSE",
  "Retry-After",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "RateLimit-Policy",
  "X-Request-Id",
  "Allow",
];

export function apiCors(): MiddlewareHandler<AppEnv> {
  return cors({
    origin: "*",
    allowMethods: ["GET", "HEAD", "POST", "OPTIONS"],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
  });
}
