import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { Config } from "./config.ts";
import type { DomainContext } from "./domain/context.ts";
import { baseUrl, type HttpDeps } from "./http/deps.ts";
import { describePricedEndpoints } from "./http/discovery.ts";
import type { AppEnv } from "./http/env.ts";
import { BODY_LIMIT_BYTES, errorResponse, handleError } from "./http/errors.ts";
import { allowedMethods, methodNotAllowed } from "./http/method-not-allowed.ts";
import { apiCors } from "./http/middleware/cors.ts";
import { rateLimit } from "./http/middleware/rate-limit.ts";
import { requestContext } from "./http/middleware/request-id.ts";
import { buildOpenApiDocument, registerOpenApiRoute, registerSecuritySchemes } from "./http/openapi.ts";
import { registerBuyCredits } from "./http/routes/billing/credits.ts";
import { registerGetBilling } from "./http/routes/billing/get.ts";
import { registerGetBuyerHistory } from "./http/routes/buyers/history.ts";
import { registerListCompanyAwards } from "./http/routes/companies/awards.ts";
import { registerGetCompany } from "./http/routes/companies/get.ts";
import { registerListCompanyOpportunities } from "./http/routes/companies/opportunities.ts";
import { registerGetDemo } from "./http/routes/demo/get.ts";
import { registerDevFaucet } from "./http/routes/dev-faucet/post.ts";
import { routeMissingHint } from "./http/routes/disabled.ts";
import { registerHealth } from "./http/routes/discovery/health.ts";
import { registerLlmsTxt } from "./http/routes/discovery/llms-txt.ts";
import { registerMcpServerCard } from "./http/routes/discovery/mcp-card.ts";
import { registerMorCheckout } from "./http/routes/mor/checkout.ts";
import { registerMorWebhook } from "./http/routes/mor/webhook.ts";
import { PAGE_ROUTES, registerPages } from "./http/routes/pages/index.ts";
import { registerGetPricing } from "./http/routes/pricing/get.ts";
import { registerListRenewals } from "./http/routes/renewals/get.ts";
import { registerResearch } from "./http/routes/research/post.ts";
import { registerSearch } from "./http/routes/search/get.ts";
import { registerGetStats } from "./http/routes/stats/get.ts";
import { registerGetTender } from "./http/routes/tenders/get.ts";
import { validationHook } from "./http/validation.ts";
import { serverCard } from "./mcp/card.ts";
import type { McpDeps } from "./mcp/deps.ts";
import { handleMcpPost, mcpMethodNotAllowed } from "./mcp/route.ts";
import { listTools, toolPriceUsd } from "./mcp/tools.ts";
import type { EndpointDiscovery } from "./payments/gate.ts";
import type { Payments } from "./payments/index.ts";

export interface AppDeps {
  config: Config;
  domain: DomainContext;
  payments: Payments;
  /** The running process around the app (server.ts); absent in in-process tests. */
  process?: {
    /** Whether this process leads scheduled ingestion (GET /health). */
    ingestLeader(): { role: Config["INGEST_ROLE"]; leading: boolean; since: Date | null };
    /** True once shutdown began: answers then close their connection, so no new request reuses it. */
    draining(): boolean;
  };
}

/**
 * Builds the HTTP app. No side effects: nothing listens, nothing is read from the environment; tests call
 * `app.request()` on the result. `main.ts` is the only file that serves it.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use("*", requestContext(deps.domain.log));
  const running = deps.process;
  if (running) {
    // While draining, a kept-alive connection is closed after its answer: the next request opens a new
    // connection, which the closed listener refuses (the client or load balancer goes to another replica).
    app.use("*", async (c, next) => {
      await next();
      if (running.draining()) {
        c.header("Connection", "close");
      }
    });
  }
  // Before the rate limit: a browser's preflight is answered here and not counted.
  app.use("*", apiCors());
  if (deps.config.RATE_LIMIT_PER_MINUTE > 0) {
    app.use(
      "*",
      rateLimit({
        perMinute: deps.config.RATE_LIMIT_PER_MINUTE,
        burst: deps.config.RATE_LIMIT_BURST ?? deps.config.RATE_LIMIT_PER_MINUTE,
        trustProxy: deps.config.RATE_LIMIT_TRUST_PROXY,
        now: () => deps.domain.now().getTime(),
      }),
    );
  }
  app.use(
    "*",
    bodyLimit({
      maxSize: BODY_LIMIT_BYTES,
      onError: () => {
        throw new HTTPException(413, { message: "request body too large" });
      },
    }),
  );
  app.onError(handleError);
  app.notFound((c) => {
    const allow = allowedMethods(knownRoutes(), c.req.path);
    return allow.length > 0
      ? methodNotAllowed(c, allow)
      : errorResponse(
          c,
          "not_found",
          `No route ${c.req.method} ${c.req.path}.`,
          routeMissingHint(c.req.path),
        );
  });

  let served: string[] | undefined;
  // Every path with the methods that answer it: the API's routes, /mcp (POST) and the pages (GET).
  let known: string[] | undefined;
  const knownRoutes = () => {
    known ??= [
      ...app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`),
      "POST /mcp",
      ...PAGE_ROUTES,
    ];
    return known;
  };
  let discovery: Map<string, EndpointDiscovery> | undefined;
  const httpDeps: HttpDeps = {
    ...deps,
    ingestLeader: deps.process?.ingestLeader,
    // Read lazily: at request time every route has been registered.
    servedRoutes: () => {
      served ??= app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
      return served;
    },
    mcpTools: () =>
      listTools().map((tool) => ({ name: tool.name, title: tool.title, priceUsd: toolPriceUsd(tool) })),
    describeEndpoint: (endpoint) => {
      discovery ??= describePricedEndpoints(buildOpenApiDocument(app, ""));
      return discovery.get(endpoint);
    },
  };

  registerSecuritySchemes(app);
  registerOpenApiRoute(app, httpDeps);
  registerLlmsTxt(app, httpDeps);
  registerHealth(app, httpDeps);
  registerGetPricing(app, httpDeps);
  registerGetDemo(app, httpDeps);
  registerPages(app);
  if (deps.config.PAYMENTS_MODE === "dev") {
    registerDevFaucet(app, httpDeps);
  }
  registerSearch(app, httpDeps);
  registerGetTender(app, httpDeps);
  registerGetCompany(app, httpDeps);
  registerListCompanyAwards(app, httpDeps);
  registerListCompanyOpportunities(app, httpDeps);
  registerGetBuyerHistory(app, httpDeps);
  registerListRenewals(app, httpDeps);
  registerResearch(app, httpDeps);
  registerGetBilling(app, httpDeps);
  registerBuyCredits(app, httpDeps);
  // Served only when configured: pricing and OpenAPI then list exactly what answers.
  if (deps.payments.subscription) {
    registerMorCheckout(app, deps.payments.subscription);
    registerMorWebhook(app, deps.payments.subscription);
  }
  if (deps.config.OPERATOR_KEY) {
    registerGetStats(app, httpDeps, deps.config.OPERATOR_KEY);
  }

  // MCP: the same verbs and payment gate as REST, behind the same app-wide request id, rate limit and body
  // limit middleware (registered above with app.use("*")).
  // The endpoint dispatches on the method itself (POST: JSON-RPC; anything else 405) as the MCP transport
  // does; its contract is the MCP protocol and the server card, not the REST OpenAPI document.
  const mcpDeps: McpDeps = { ...deps, servedRoutes: httpDeps.servedRoutes };
  app.all("/mcp", (c) =>
    c.req.method === "POST"
      ? handleMcpPost(mcpDeps, c.req.raw, {
          requestId: c.get("requestId"),
          log: c.get("log"),
          baseUrl: baseUrl(c, httpDeps),
        })
      : mcpMethodNotAllowed(),
  );
  registerMcpServerCard(app, httpDeps, (base) => serverCard(base, deps.config.PAYMENTS_MODE));

  return app;
}
