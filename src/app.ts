import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { Config } from "./config.ts";
import type { DomainContext } from "./domain/context.ts";
import type { HttpDeps } from "./http/deps.ts";
import type { AppEnv } from "./http/env.ts";
import { BODY_LIMIT_BYTES, errorResponse, handleError } from "./http/errors.ts";
import { requestContext } from "./http/middleware/request-id.ts";
import { registerOpenApiRoute, registerSecuritySchemes } from "./http/openapi.ts";
import { registerGetBuyerHistory } from "./http/routes/buyers/history.ts";
import { registerListCompanyAwards } from "./http/routes/companies/awards.ts";
import { registerGetCompany } from "./http/routes/companies/get.ts";
import { registerDevFaucet } from "./http/routes/dev-faucet/post.ts";
import { registerHealth } from "./http/routes/discovery/health.ts";
import { registerLlmsTxt } from "./http/routes/discovery/llms-txt.ts";
import { registerGetPricing } from "./http/routes/pricing/get.ts";
import { registerSearch } from "./http/routes/search/get.ts";
import { registerGetTender } from "./http/routes/tenders/get.ts";
import { validationHook } from "./http/validation.ts";
import type { Payments } from "./payments/index.ts";

export interface AppDeps {
  config: Config;
  domain: DomainContext;
  payments: Payments;
}

/**
 * Builds the HTTP app. No side effects: nothing listens, nothing is read from the environment; tests call
 * `app.request()` on the result. `main.ts` is the only file that serves it.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use("*", requestContext(deps.domain.log));
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
  app.notFound((c) =>
    errorResponse(
      c,
      "not_found",
      `No route ${c.req.method} ${c.req.path}.`,
      "See GET /openapi.json or GET /llms.txt for the routes this service answers.",
    ),
  );

  let served: string[] | undefined;
  const httpDeps: HttpDeps = {
    ...deps,
    // Read lazily: at request time every route has been registered.
    servedRoutes: () => {
      served ??= app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
      return served;
    },
  };

  registerSecuritySchemes(app);
  registerOpenApiRoute(app, httpDeps);
  registerLlmsTxt(app, httpDeps);
  registerHealth(app, httpDeps);
  registerGetPricing(app, httpDeps);
  if (deps.config.PAYMENTS_MODE === "dev") {
    registerDevFaucet(app, httpDeps);
  }
  registerSearch(app, httpDeps);
  registerGetTender(app, httpDeps);
  registerGetCompany(app, httpDeps);
  registerListCompanyAwards(app, httpDeps);
  registerGetBuyerHistory(app, httpDeps);

  return app;
}
