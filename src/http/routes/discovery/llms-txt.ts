import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { FAUCET_ENDPOINT, type X402Terms } from "../../../domain/pricing/get-pricing.ts";
import { findPrice, isServedBy, PRICE_TABLE, priceUsd } from "../../../domain/pricing/price-table.ts";
import { PROCEDURE_TYPES, TENDER_STATUSES } from "../../../domain/vocabulary.ts";
import { baseUrl, type HttpDeps, type McpToolSummary } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { errorResponses } from "../../errors.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "../../openapi.ts";
import { type ExamplesFile, openApiExamples } from "../../openapi-examples.ts";

/** The procedure types Spanish law has and eForms lacks (the vocabulary's values after the eForms ones). */
const SPANISH_PROCEDURES = PROCEDURE_TYPES.slice(PROCEDURE_TYPES.indexOf("simplified-open")).join(", ");

interface Operation {
  endpoint: string;
  path: string;
  summary: string;
  operationId: string;
}

/** Operations of the OpenAPI document, named as the price table names endpoints (`GET /v1/tenders/:id`). */
function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const operation = item?.[method];
      if (operation) {
        const endpoint = `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`;
        operations.push({
          endpoint,
          path,
          summary: operation.summary ?? "",
          operationId: operation.operationId ?? "",
        });
      }
    }
  }
  return operations.sort((a, b) => a.path.localeCompare(b.path) || a.endpoint.localeCompare(b.endpoint));
}

/**
 * llms.txt (llmstxt.org): H1, summary blockquote, details, then H2 link lists. Built from the OpenAPI document
 * (what is served) and the price table (what it costs), so it cannot drift from either.
 */
export function buildLlmsTxt(input: {
  base: string;
  paymentsMode: "dev" | "x402";
  document: OpenApiDocument;
  /** x402 mode: the real payment terms. */
  x402?: X402Terms;
  /** The MCP tools at POST /mcp (none: no MCP section). */
  tools?: readonly McpToolSummary[];
  /** One example call per endpoint and tool: the OpenAPI examples' (real calls, see openapi-examples.ts). */
  examples?: ExamplesFile;
}): string {
  const { base, paymentsMode, document, x402, tools = [], examples } = input;
  const operations = operationsOf(document).map((op) => {
    const entry = findPrice(op.endpoint);
    return { op, price: entry ? { free: entry.free, usd: priceUsd(entry) } : soldBy(op.endpoint) };
  });
  const line = ({ op, price }: (typeof operations)[number]) => {
    const cost = price && !price.free ? `${price.usd} USD` : "free";
    const call = examples?.operations[op.operationId]?.call;
    const example = call ? ` Example: \`${call}\`` : "";
    // A path with parameters is not a URL anyone can open: named as text (`GET /v1/tenders/:id`), not linked.
    return op.path.includes("{")
      ? `- ${op.endpoint}: ${cost}. ${op.summary}.${example}`
      : `- [${op.endpoint}](${base}${op.path}): ${cost}. ${op.summary}.${example}`;
  };
  const payment =
    paymentsMode === "dev"
      ? `Payments run in development mode: ${FAUCET_ENDPOINT} with {"endpoint": "<METHOD /path>"} returns a single-use token; send it as header X-PAYMENT. No money moves.`
      : x402Payment(x402);
  return [
    "# procurement-intel",
    "",
    "> Pay-per-call REST API over Spanish (PLACSP) and EU (TED) public-procurement notices, focused on IT, software and cyber contracts: who wins what from whom, what is about to be re-tendered, which open tenders fit a company. Paid per call in USDC over x402, from prepaid credits, or by subscription.",
    "",
    "Discovery order: 1. GET /llms.txt (this file), 2. GET /openapi.json (REST schema), 3. GET /v1/pricing (prices and payment flow), 4. paid calls, or MCP at POST /mcp.",
    "",
    `- ${payment}`,
    "- Answers are {data, meta}; meta carries request_id, price_usd, paid and provenance (upstream notice references and URLs).",
    "- Errors are {error: {code, message, hint}} with codes invalid_query (400), payment_required (402), not_found (404; also when no data is loaded yet, before any payment), method_not_allowed (405, with Allow), rate_limited (429), internal (500); the hint says what to do next.",
    "- Unknown values are null, never invented. Framework agreement values are ceilings, not spend.",
    `- One vocabulary for both sources: a tender's notice_type, procedure_type (eForms codes, plus the Spanish ${SPANISH_PROCEDURES}), contract_type and status (${TENDER_STATUSES.join(", ")}) mean the same whether the notice came from PLACSP or TED; /openapi.json enumerates every value and source_codes keeps the codes as published. An award's start_date_kind says whether start_date is the actual or the planned start.`,
    "- GET /v1/search: meta.total is exact up to 10,000 matching rows; above that it is 10,000 and meta.total_exact is false (narrow the filters: dates, cpv, region, buyer). Only the first 10,000 rows can be paged to. With q, the 10,000 newest matches are ranked by relevance (title words outweigh description words), then date.",
    "- GET /v1/renewals: re-tender forecasts (duration_expiry, framework_expiry, recurrence) are a deterministic heuristic, not probabilities; each signal's basis carries its evidence and rules, and meta.backtest reports how often past forecasts came true beside a naive base rate.",
    "- GET /v1/companies/{id}/opportunities: open tenders (published within 90 days or with a deadline ahead; not awarded, annulled or closed) sharing a buyer or a CPV division with the awards of the company and of its joint ventures. Integer score 0-100 (same buyer, CPV match at 8/6/4/2 digits, recency, estimated value near the company's median award, renewal-signal evidence) spelled out in meta.score_explanation; ordered by score, then id descending.",
    "",
    "## Discovery",
    `- [OpenAPI 3.1](${base}/openapi.json): every route with its parameters, limits and error responses`,
    `- [Pricing](${base}/v1/pricing): price of every endpoint and how to pay (free)`,
    `- [API reference](${base}/docs): the OpenAPI document rendered for people (HTML)`,
    ...(tools.length > 0
      ? [
          `- [MCP server card](${base}/.well-known/mcp/server-card.json): the MCP tools, their inputs and prices`,
        ]
      : []),
    "",
    "## Paid endpoints",
    ...operations.filter(({ price }) => price && !price.free).map(line),
    "",
    "## Free endpoints",
    ...operations.filter(({ price }) => !price || price.free).map(line),
    "",
    ...(tools.length > 0 ? mcpSection(base, paymentsMode, tools, examples) : []),
  ].join("\n");
}

/**
 * The MCP tools: same verbs, prices and payment gate as the REST routes. Each line links the endpoint, since a
 * tool has no URL of its own.
 */
function mcpSection(
  base: string,
  paymentsMode: "dev" | "x402",
  tools: readonly McpToolSummary[],
  examples: ExamplesFile | undefined,
): string[] {
  const token =
    paymentsMode === "dev"
      ? `a token from ${FAUCET_ENDPOINT} for the endpoint how_to_pay names`
      : 'the base64 x402 payment payload, or the payload object as params._meta["x402/payment"]';
  const cost = (price: string | null) =>
    price === null ? "priced by amount" : price === "0.00" ? "free" : `${price} USD`;
  return [
    "## MCP tools",
    `- [POST /mcp](${base}/mcp): Streamable-HTTP MCP server (stateless, JSON responses; tools/list, tools/call). An unpaid priced call returns {payment_required: true, price_usd, how_to_pay} as normal content; call again with payment_token (${token}), or client_key (prepaid credits).`,
    ...tools.map((tool) => {
      const args = examples?.tools[tool.name]?.arguments;
      const example = args
        ? ` Example (tools/call params): \`${JSON.stringify({ name: tool.name, arguments: args })}\``
        : "";
      return `- [${tool.name}](${base}/mcp): ${cost(tool.priceUsd)}. ${tool.title}.${example}`;
    }),
    "",
  ];
}

/** Price of an endpoint (`usd`), or of a route selling several entries (`POST /v1/billing/credits/:amount`). */
function soldBy(endpoint: string): { free: boolean; usd: string } | undefined {
  const sold = PRICE_TABLE.filter((entry) => !entry.free && isServedBy(entry.endpoint, [endpoint]));
  return sold.length > 0 ? { free: false, usd: sold.map(priceUsd).join(" / ") } : undefined;
}

function x402Payment(terms: X402Terms | undefined): string {
  const where = terms
    ? " Payments are EIP-3009 transferWithAuthorization signatures (x402 scheme exact) of " +
      `${terms.assetSymbol} ${terms.asset} on ${terms.network} to ${terms.payTo}, for exactly the ` +
      "endpoint's price in atomic units (6 decimals)."
    : "";
  return (
    "Payments: an unpaid call answers HTTP 402 with header PAYMENT-REQUIRED (x402 v2); retry with header " +
    `PAYMENT-SIGNATURE (v1: X-PAYMENT).${where} The answer is sent only after settlement, with header ` +
    "PAYMENT-RESPONSE; each proof pays once. Prepaid credits: header x-client-key."
  );
}

const route = createRoute({
  method: "get",
  path: "/llms.txt",
  operationId: "getLlmsTxt",
  tags: ["discovery"],
  summary: "Concise machine-readable description of the service (free)",
  responses: {
    200: { description: "llms.txt (Markdown).", content: { "text/plain": { schema: z.string() } } },
    ...errorResponses(429, 500),
  },
});

export function registerLlmsTxt(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  const cache = new Map<string, string>();
  app.openapi(route, (c) => {
    const base = baseUrl(c, deps);
    let text = cache.get(base);
    if (text === undefined) {
      text = buildLlmsTxt({
        base,
        paymentsMode: deps.config.PAYMENTS_MODE,
        document: buildOpenApiDocument(app, base),
        x402: deps.payments.x402 ?? undefined,
        tools: deps.mcpTools?.(),
        examples: openApiExamples(),
      });
      cache.set(base, text);
    }
    return c.text(text, 200, { "Content-Type": "text/plain; charset=utf-8" });
  });
}
