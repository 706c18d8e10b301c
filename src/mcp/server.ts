import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { buildEnvelope } from "../domain/envelope.ts";
import {
  DomainError,
  type ErrorCode,
  PaymentRequiredError,
  type PaymentSettlement,
} from "../domain/errors.ts";
import { getPricing, pricingInputOf } from "../domain/pricing/get-pricing.ts";
import { priceOf } from "../domain/pricing/price-table.ts";
import { describeIssues } from "../domain/validation.ts";
import { assertUsableClientKey, bundleEntry } from "../payments/credits/credits.ts";
import type { McpDeps, McpRequestContext } from "./deps.ts";
import { credentialsOf, type PaymentContext, paymentRequiredContent, settlementMeta } from "./payment.ts";
import { annotationsOf, findTool, inputJsonSchema, listTools, type PricedTool, type Tool } from "./tools.ts";

export const SERVER_NAME = "procurement-intel";
export const SERVER_VERSION = "0.1.0";

const INSTRUCTIONS =
  "Spanish (PLACSP) and EU (TED) public-procurement data: who wins what from whom, what is about to be " +
  "re-tendered, which open tenders fit a company. Priced tools answer {payment_required: true, price_usd, " +
  "how_to_pay} until paid: pass payment_token (x402 payload or dev-faucet token) or client_key (prepaid " +
  "credits). get_pricing and billing_get_balance are free. Ids come from search_tenders.";

/**
 * One MCP server per request (the SDK's stateless pattern: no session, nothing shared between requests). The
 * low-level `Server` is used rather than `McpServer` so that argument validation is ours: an invalid argument
 * is a tool error naming the argument and its limit in the words REST uses, not the SDK's raw zod dump.
 */
export function buildServer(deps: McpDeps, request: McpRequestContext): Server {
  const server = new Server(
    { name: SERVER_NAME, title: "procurement-intel", version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools().map(toolListing) }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) =>
    callTool(deps, request, params.name, params.arguments ?? {}, params._meta),
  );
  return server;
}

export function toolListing(tool: Tool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool) as { type: "object"; [key: string]: unknown },
    annotations: annotationsOf(tool),
  };
}

async function callTool(
  deps: McpDeps,
  request: McpRequestContext,
  name: string,
  rawArgs: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const tool = findTool(name);
  if (!tool) {
    return errorResult(
      "invalid_query",
      `Unknown tool "${name}".`,
      `Call tools/list; the tools are ${listTools()
        .map((t) => t.name)
        .join(", ")}.`,
    );
  }
  const parsed = tool.input.safeParse(rawArgs);
  if (!parsed.success) {
    const { message, hint } = describeIssues(parsed.error.issues, {
      where: "argument",
      whole: "arguments",
      reference: "tools/list",
      rawValue: (key) => rawArgs[key],
    });
    return errorResult("invalid_query", message, hint);
  }
  const args = parsed.data;
  try {
    switch (tool.kind) {
      case "priced":
        return await callPriced(deps, request, tool, args, meta);
      case "purchase":
        return await purchaseCredits(deps, request, tool, args, meta);
      default:
        return await callFree(deps, request, tool, args);
    }
  } catch (error) {
    if (error instanceof DomainError) {
      return errorResult(error.code, error.message, error.hint);
    }
    request.log.error({ err: error, tool: name }, "unhandled error in an MCP tool");
    return errorResult(
      "internal",
      "Internal server error.",
      `Retry later; nothing was charged. If it persists, report request id ${request.requestId}.`,
    );
  }
}

async function callPriced(
  deps: McpDeps,
  request: McpRequestContext,
  tool: PricedTool,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const { payment_token, client_key, ...verbArgs } = args as {
    payment_token?: string;
    client_key?: string;
  } & Record<string, unknown>;
  const entry = priceOf(tool.endpoint);
  const context: PaymentContext = { tool: tool.name, entry, baseUrl: request.baseUrl, creditsPay: true };
  try {
    const result = await deps.payments.charge(
      {
        endpoint: entry.endpoint,
        priceCents: entry.priceCents,
        credentials: credentialsOf(deps.payments.mode, { payment_token, client_key }, meta),
        resourceUrl: `${request.baseUrl}${tool.resourcePath(verbArgs)}`,
      },
      request.requestId,
      () =>
        tool.run({ ...deps.domain, log: request.log }, verbArgs, {
          requestId: request.requestId,
          priceCents: entry.priceCents,
        }),
    );
    return dataResult(result.value, tool.summarize(result.value), result.settlement);
  } catch (error) {
    if (error instanceof PaymentRequiredError) {
      return paymentResult(error, context);
    }
    throw error;
  }
}

/** `billing_purchase_credits`: the REST purchase (POST /v1/billing/credits/:amount) over MCP. */
async function purchaseCredits(
  deps: McpDeps,
  request: McpRequestContext,
  tool: Tool,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const { client_key, amount, payment_token } = args as {
    client_key: string;
    amount: string;
    payment_token?: string;
  };
  assertUsableClientKey(client_key);
  const entry = bundleEntry(amount);
  if (!entry) {
    throw new Error(`bundle ${amount} passed validation but is not in the price table`);
  }
  const context: PaymentContext = { tool: tool.name, entry, baseUrl: request.baseUrl, creditsPay: false };
  let settlement: PaymentSettlement | undefined;
  try {
    // The credit is the content: it is written only once the payment is final (settled), never before.
    ({ settlement } = await deps.payments.charge(
      {
        endpoint: entry.endpoint,
        priceCents: entry.priceCents,
        credentials: credentialsOf(deps.payments.mode, { payment_token }, meta),
        resourceUrl: `${request.baseUrl}/v1/billing/credits/${amount}`,
      },
      request.requestId,
      async () => entry,
    ));
  } catch (error) {
    if (error instanceof PaymentRequiredError) {
      return paymentResult(error, context);
    }
    throw error;
  }
  const data = await deps.payments.credits.creditPaidBundle({
    key: client_key,
    entry,
    requestId: request.requestId,
    log: request.log,
  });
  const envelope = buildEnvelope(request.requestId, data, { priceCents: entry.priceCents, paid: true });
  return dataResult(
    envelope,
    `Credited ${data.credited_usd} USD; balance ${data.balance_usd} USD.`,
    settlement,
  );
}

async function callFree(
  deps: McpDeps,
  request: McpRequestContext,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  if (tool.name === "billing_get_balance") {
    const balance = await deps.payments.credits.balance(String(args.client_key));
    const envelope = buildEnvelope(request.requestId, balance, { priceCents: 0, paid: false });
    return dataResult(envelope, `Balance ${balance.balance_usd} USD (${balance.balance_cents} cents).`);
  }
  // get_pricing: the same answer as GET /v1/pricing.
  const pricing = getPricing({ input: pricingInputOf(deps) });
  const envelope = buildEnvelope(request.requestId, pricing, { priceCents: 0, paid: false });
  return dataResult(
    envelope,
    `Pricing: ${pricing.endpoints.length} endpoints, mode ${pricing.payments_mode}.`,
  );
}

/**
 * A data answer: `structuredContent` is the REST envelope; `content` a one-line summary plus the same JSON as
 * text (the MCP spec asks for it, for clients that do not read structured content).
 */
function dataResult(envelope: unknown, summary: string, settlement?: PaymentSettlement): CallToolResult {
  const result: CallToolResult = {
    content: [
      { type: "text", text: summary },
      { type: "text", text: JSON.stringify(envelope) },
    ],
    structuredContent: envelope as Record<string, unknown>,
  };
  const meta = settlementMeta(settlement);
  if (meta) {
    result._meta = meta;
  }
  return result;
}

function paymentResult(error: PaymentRequiredError, context: PaymentContext): CallToolResult {
  const content = paymentRequiredContent(error, context);
  const result: CallToolResult = {
    content: [
      {
        type: "text",
        text: `Payment required: ${context.tool} costs ${content.price_usd} USD. ${error.message} ${content.hint}`,
      },
      { type: "text", text: JSON.stringify(content) },
    ],
    structuredContent: content,
  };
  const meta = settlementMeta(error.challenge.settlement);
  if (meta) {
    result._meta = meta;
  }
  return result;
}

/** A tool error in the spec's error envelope: the code, what was wrong, and what to do. */
function errorResult(code: ErrorCode, message: string, hint?: string): CallToolResult {
  const error = hint === undefined ? { code, message } : { code, message, hint };
  return {
    isError: true,
    content: [{ type: "text", text: `${code}: ${message}${hint ? ` ${hint}` : ""}` }],
    structuredContent: { error },
  };
}
