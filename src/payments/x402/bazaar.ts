import type { HTTPAdapter, HTTPRequestContext } from "@x402/core/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { EndpointDiscovery } from "../gate.ts";

/**
 * The `extensions.bazaar` declaration of a priced endpoint (x402 catalog discovery): what it takes (query
 * parameters or JSON body, path parameters) and returns, as examples plus JSON Schema. Built with the
 * protocol's own `declareDiscoveryExtension` and enriched exactly as its resource-server extension does for
 * an HTTP request (`input.method`, `routeTemplate`, `pathParams`), so facilitators validate it with the same
 * code that made it.
 */
export function bazaarExtension(
  endpoint: string,
  requestUrl: string,
  discovery: EndpointDiscovery | undefined,
): Record<string, unknown> {
  const [method = "GET", routeTemplate = "/"] = endpoint.split(" ");
  const output = discovery?.output ? { output: discovery.output } : {};
  const declared =
    method === "POST" || method === "PUT" || method === "PATCH"
      ? declareDiscoveryExtension({
          bodyType: "json",
          input: discovery?.body?.example ?? {},
          inputSchema: discovery?.body?.schema ?? { type: "object" },
          ...output,
        })
      : declareDiscoveryExtension({
          input: discovery?.query?.example ?? {},
          inputSchema: discovery?.query?.schema ?? { properties: {} },
          ...output,
        });
  const path = new URL(requestUrl, "http://localhost").pathname;
  const context: HTTPRequestContext = {
    adapter: requestAdapter(method, path, requestUrl),
    path,
    method,
    routePattern: routeTemplate,
  };
  const enrich = bazaarResourceServerExtension.enrichDeclaration;
  const bazaar = enrich ? enrich(declared.bazaar, context) : declared.bazaar;
  return { bazaar };
}

/** The parts of an HTTP request the bazaar enrichment reads (method and path); nothing else is exposed. */
function requestAdapter(method: string, path: string, url: string): HTTPAdapter {
  return {
    getHeader: () => undefined,
    getMethod: () => method,
    getPath: () => path,
    getUrl: () => url,
    getAcceptHeader: () => "application/json",
    getUserAgent: () => "",
  };
}

/**
 * The same declaration cut down for the `PAYMENT-REQUIRED` header, which must stay small: proxies keep a
 * response's headers in one buffer (nginx: 4 KB by default) and answer 502 when they overflow, and x402 clients
 * echo the declaration back in `PAYMENT-SIGNATURE`. It keeps what a catalog needs to list the resource (method,
 * input example, path parameters, each input's name and type, and that the output is JSON) and drops the
 * constraints, the output schema and its example, which the 402 body carries in full.
 */
export function compactBazaarExtension(
  endpoint: string,
  requestUrl: string,
  discovery: EndpointDiscovery | undefined,
): Record<string, unknown> {
  const compact: EndpointDiscovery = {};
  if (discovery?.query) {
    compact.query = { example: discovery.query.example, schema: typesOnly(discovery.query.schema) };
  }
  if (discovery?.body) {
    compact.body = {
      example: discovery.body.example,
      schema: { type: "object", ...typesOnly(discovery.body.schema) },
    };
  }
  return bazaarExtension(endpoint, requestUrl, compact);
}

/** `{properties, required}` with each property reduced to its JSON type(s). */
function typesOnly(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const reduced = Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => {
      const type = sub.type ?? typesOf(sub.anyOf ?? sub.oneOf);
      return [name, type === undefined ? {} : { type }];
    }),
  );
  const required =
    Array.isArray(schema.required) && schema.required.length > 0 ? { required: schema.required } : {};
  return { properties: reduced, ...required };
}

function typesOf(branches: unknown): string[] | undefined {
  if (!Array.isArray(branches)) {
    return undefined;
  }
  const types = [
    ...new Set(
      branches.flatMap((b) => {
        const t = (b as Record<string, unknown>).type;
        return typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x) => typeof x === "string") : [];
      }),
    ),
  ];
  return types.length > 0 ? types : undefined;
}
