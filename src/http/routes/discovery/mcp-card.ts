import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { baseUrl, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { errorResponses } from "../../errors.ts";

const route = createRoute({
  method: "get",
  path: "/.well-known/mcp/server-card.json",
  operationId: "getMcpServerCard",
  tags: ["discovery"],
  summary: "MCP server card: the MCP endpoint, its tools, their input schemas and prices (free)",
  description:
    "Static description of the MCP surface at POST /mcp (stateless Streamable HTTP; the MCP protocol itself, " +
    "not this document, describes its JSON-RPC exchange). Fields of the draft server-card format (name, " +
    "version, description, remotes) plus schemaVersion (a date), transport and the tool list with prices.",
  responses: {
    200: {
      description: "The server card.",
      content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
    },
    ...errorResponses(429, 500),
  },
});

/** Serves the MCP server card that app.ts supplies (http does not import mcp). */
export function registerMcpServerCard(
  app: OpenAPIHono<AppEnv>,
  deps: HttpDeps,
  card: (base: string) => Record<string, unknown>,
): void {
  app.openapi(route, (c) => {
    c.header("Access-Control-Allow-Origin", "*");
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(card(baseUrl(c, deps)), 200);
  });
}
