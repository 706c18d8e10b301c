import type { Config } from "../config.ts";
import type { DomainContext } from "../domain/context.ts";
import type { Payments } from "../payments/index.ts";

/** What the MCP surface receives from the composition root (app.ts). */
export interface McpDeps {
  config: Config;
  domain: DomainContext;
  payments: Payments;
  /** Routes the app serves, as `METHOD /path/:param`: the pricing tool lists what REST serves. */
  servedRoutes(): readonly string[];
}

/** One MCP request (one JSON-RPC message over POST /mcp) as the app-wide middleware identified it. */
export interface McpRequestContext {
  requestId: string;
  log: DomainContext["log"];
  /** The public base URL: PUBLIC_BASE_URL, or the origin the request came in on. */
  baseUrl: string;
}
