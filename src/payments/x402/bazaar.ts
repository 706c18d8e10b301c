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
