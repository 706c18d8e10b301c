import type { Context } from "hono";
import type { Config } from "../config.ts";
import type { DomainContext } from "../domain/context.ts";
import type { EndpointDiscovery } from "../payments/gate.ts";
import type { Payments } from "../payments/index.ts";
import type { AppEnv } from "./env.ts";

/** What route registrations receive. Handlers reach storage only through domain verbs. */
export interface HttpDeps {
  config: Config;
  domain: DomainContext;
  payments: Payments;
  /** Routes the app serves, as `METHOD /path/:param` (known once all routes are registered). */
  servedRoutes(): readonly string[];
  /** The MCP tools served at POST /mcp, for llms.txt (app.ts supplies them: http does not import mcp). */
  mcpTools?(): readonly McpToolSummary[];
  /** Whether this process leads scheduled ingestion (server.ts supplies it; absent = it runs none). */
  ingestLeader?(): { role: Config["INGEST_ROLE"]; leading: boolean; since: Date | null };
  /** Input and output of a priced endpoint (from the OpenAPI document), for x402 catalog discovery. */
  describeEndpoint?(endpoint: string): EndpointDiscovery | undefined;
}

/** An MCP tool as discovery documents list it. */
export interface McpToolSummary {
  name: string;
  /** USD per call; null when the price depends on the arguments (the credit purchase). */
  priceUsd: string | null;
  title: string;
}

/** The domain context for one request: the request's own logger, so verb logs carry its id. */
export function domainContext(c: Context<AppEnv>, deps: HttpDeps): DomainContext {
  return { ...deps.domain, log: c.get("log") };
}

/** The public base URL: configured, or the origin the request came in on. */
export function baseUrl(c: Context<AppEnv>, deps: HttpDeps): string {
  return (deps.config.PUBLIC_BASE_URL ?? new URL(c.req.url).origin).replace(/\/+$/, "");
}
