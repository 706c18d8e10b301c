import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env.ts";
import { type Asset, lazyAsset, REVALIDATE, sendAsset } from "./assets.ts";
import { docsPage, SCALAR_BUNDLE_PATH, scalarBundle } from "./docs.ts";
import { landingPage } from "./landing.ts";

const STATIC = new URL("./static/", import.meta.url);

/** Our own small assets under /assets/ (scripts, stylesheet, icon), shipped beside this file. */
const OWN_ASSETS: Record<string, () => Asset> = {
  "landing.js": lazyAsset(new URL("landing.js", STATIC), "text/javascript; charset=utf-8", REVALIDATE),
  "docs.js": lazyAsset(new URL("docs.js", STATIC), "text/javascript; charset=utf-8", REVALIDATE),
  "site.css": lazyAsset(new URL("site.css", STATIC), "text/css; charset=utf-8", REVALIDATE),
  "favicon.svg": lazyAsset(new URL("favicon.svg", STATIC), "image/svg+xml", REVALIDATE),
};

/** Answers GET (and HEAD, which Hono dispatches as GET) when `respond` has an answer; anything else goes on. */
function onGet(respond: (c: Context<AppEnv>) => Response | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const res = c.req.method === "GET" || c.req.method === "HEAD" ? respond(c) : undefined;
    if (res) {
      return res;
    }
    await next();
  };
}

/**
 * The pages a person reads: the landing page at / and the API reference at /docs, with their assets.
 *
 * They are served the way Hono serves static files, through middleware rather than routes: they are not API
 * operations, so /openapi.json (which documents every route and nothing else), llms.txt and the pricing
 * endpoints stay about the API. The middleware runs after the request id, rate limit and body limit, so page
 * requests are logged and limited like any other; a method other than GET falls through to the 404.
 */
export function registerPages(app: OpenAPIHono<AppEnv>): void {
  app.use(
    "/",
    onGet((c) => {
      const page = landingPage();
      return c.html(page.body, 200, page.headers);
    }),
  );
  app.use(
    "/docs",
    onGet((c) => {
      const page = docsPage();
      return c.html(page.body, 200, page.headers);
    }),
  );
  app.use(
    SCALAR_BUNDLE_PATH,
    onGet((c) => sendAsset(c, scalarBundle())),
  );
  app.use(
    "/assets/:file",
    onGet((c) => {
      const asset = OWN_ASSETS[c.req.param("file") ?? ""];
      return asset ? sendAsset(c, asset()) : undefined;
    }),
  );
}

/** The pages and their assets as routes (GET; HEAD follows), for the 405 of another method. */
export const PAGE_ROUTES: readonly string[] = [
  "GET /",
  "GET /docs",
  `GET ${SCALAR_BUNDLE_PATH}`,
  ...Object.keys(OWN_ASSETS).map((file) => `GET /assets/${file}`),
];
