import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpDeps, McpRequestContext } from "./deps.ts";
import { buildServer } from "./server.ts";

/**
 * `POST /mcp`: Streamable HTTP, stateless, JSON responses. Each POST gets a fresh server and transport (the
 * SDK's stateless pattern), so concurrent requests never share state. The body has already passed the app's
 * body limit; it is parsed here so that a batch or malformed JSON is a JSON-RPC error before the SDK sees it
 * (batches were removed from MCP in 2025-06-18, and one message per request keeps one request id and one rate-
 * limit count per call).
 */
export async function handleMcpPost(
  deps: McpDeps,
  raw: Request,
  context: McpRequestContext,
): Promise<Response> {
  let body: unknown;
  try {
    body = JSON.parse(await raw.text());
  } catch {
    return jsonRpcError(
      400,
      -32700,
      "Parse error: the body is not valid JSON. Send one JSON-RPC 2.0 message.",
    );
  }
  if (Array.isArray(body)) {
    return jsonRpcError(
      400,
      -32600,
      "Invalid Request: JSON-RPC batches are not supported; send one message per POST /mcp.",
    );
  }
  const badCall = invalidToolCall(body);
  if (badCall !== null) {
    return jsonRpcError(200, -32602, badCall, requestIdOf(body));
  }
  const server = buildServer(deps, context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(raw, { parsedBody: body });
  } finally {
    // JSON mode: the response is complete once handleRequest returns; nothing outlives the request.
    await server.close();
  }
}

/**
 * `GET` / `DELETE /mcp`: a stateless server has no stream to open and no session to end (a GET would otherwise
 * open a server-to-client SSE stream that never ends).
 */
export function mcpMethodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed: this MCP server is stateless; use POST /mcp." },
      id: null,
    }),
    { status: 405, headers: { Allow: "POST", "Content-Type": "application/json" } },
  );
}

/**
 * A `tools/call` whose params are not `{name: string, arguments?: object}`. The SDK would answer it with
 * -32603 "Internal error" and a raw zod dump; it is the caller's mistake, so it is -32602 "Invalid params"
 * saying what to send. Null when the message is anything else (the SDK handles it).
 */
function invalidToolCall(body: unknown): string | null {
  if (!isRecord(body) || body.method !== "tools/call") {
    return null;
  }
  const params = body.params;
  if (!isRecord(params)) {
    return 'Invalid params: tools/call takes params {"name": <tool name>, "arguments": {…}}; see tools/list.';
  }
  if (typeof params.name !== "string") {
    return "Invalid params: params.name must be the name of a tool (a string); see tools/list.";
  }
  if (params.arguments !== undefined && !isRecord(params.arguments)) {
    return `Invalid params: params.arguments must be an object of the tool's arguments, as its inputSchema in tools/list describes.`;
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON-RPC id of a request, for an error answered in its place (null when it has none usable). */
function requestIdOf(body: unknown): string | number | null {
  const id = isRecord(body) ? body.id : null;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}
