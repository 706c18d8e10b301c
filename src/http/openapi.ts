import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { baseUrl, type HttpDeps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { errorResponses } from "./errors.ts";
import { openApiExamples, withExamples } from "./openapi-examples.ts";

export const API_VERSION = "0.1.0";

/** Security scheme names (`paymentSignature` is the spec's). */
export const PAYMENT_SCHEMES = {
  paymentSignature: "paymentSignature",
  xPayment: "xPayment",
  clientKey: "clientKey",
} as const;

/** Security of a priced operation: any one of the three ways to pay. */
export const PRICED_SECURITY: Record<string, string[]>[] = [
  { [PAYMENT_SCHEMES.paymentSignature]: [] },
  { [PAYMENT_SCHEMES.xPayment]: [] },
  { [PAYMENT_SCHEMES.clientKey]: [] },
];

/**
 * Security of a credit purchase: a payment (x402 or a dev token) and x-client-key naming the account to credit
 * (a balance never pays for credits).
 */
export const BUNDLE_SECURITY: Record<string, string[]>[] = [
  { [PAYMENT_SCHEMES.paymentSignature]: [], [PAYMENT_SCHEMES.clientKey]: [] },
  { [PAYMENT_SCHEMES.xPayment]: [], [PAYMENT_SCHEMES.clientKey]: [] },
];

/**
 * The ways to pay a priced operation, as security schemes (done once per app). Priced operations list them as
 * alternatives (OpenAPI ORs the requirement objects of `security`), so clients generated from the document
 * know every header that pays.
 */
export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", PAYMENT_SCHEMES.paymentSignature, {
    type: "apiKey",
    in: "header",
    name: "PAYMENT-SIGNATURE",
    description:
      "x402 v2: the base64 payment payload signed for accepts[0] of the 402's PAYMENT-REQUIRED header, " +
      "single-use.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", PAYMENT_SCHEMES.xPayment, {
    type: "apiKey",
    in: "header",
    name: "X-PAYMENT",
    description:
      "An x402 v1 payment payload (base64), a subscription key (POST /v1/mor/checkout), or in dev mode a " +
      "faucet token (POST /v1/dev-faucet, the 402's dev-faucet accepts entry).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", PAYMENT_SCHEMES.clientKey, {
    type: "apiKey",
    in: "header",
    name: "x-client-key",
    description:
      "A prepaid credit account (20-128 characters of A-Z a-z 0-9 . _ ~ -, chosen by you): each call debits " +
      "its price. Buy credits with POST /v1/billing/credits/{amount}.",
  });
}

export type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, serverUrl: string): OpenApiDocument {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "procurement-intel",
      version: API_VERSION,
      description:
        "Pay-per-call intelligence over Spanish (PLACSP) and EU (TED) public-procurement notices, focused on IT, " +
        "software and cyber contracts. Paid calls answer 402 until paid (x402 USDC, prepaid credits or " +
        "subscription). Errors: {error: {code, message, hint}}. Start with GET /llms.txt and GET /v1/pricing.",
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "discovery", description: "Free: what the service offers and what it costs." },
      { name: "search", description: "Full-text and structured search." },
      { name: "tenders", description: "Tenders and their awards." },
      { name: "companies", description: "Company profiles with win aggregates, and their awards." },
      { name: "buyers", description: "Contracting authorities: award history, concentration, recurrence." },
      { name: "payments", description: "Paying for calls." },
    ],
  });
}

const openApiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApi",
  tags: ["discovery"],
  summary: "This OpenAPI 3.1 description (free)",
  responses: {
    200: {
      description: "OpenAPI 3.1.0 document.",
      content: { "application/json": { schema: z.object({}).passthrough() } },
    },
    ...errorResponses(429, 500),
  },
});

export function registerOpenApiRoute(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  // The document depends only on the registered routes and the base URL: build it once per base URL.
  const cache = new Map<string, OpenApiDocument>();
  app.openapi(openApiRoute, (c) => {
    const url = baseUrl(c, deps);
    let document = cache.get(url);
    if (!document) {
      // The examples are documentation only: the x402 catalog entries (describeEndpoint) are built from the
      // document without them, so a 402 never depends on the examples file.
      document = withExamples(buildOpenApiDocument(app, url), openApiExamples());
      cache.set(url, document);
    }
    return c.json(document as unknown as Record<string, unknown>, 200);
  });
}
