/**
 * The hint of the 404 for a path that exists in the spec but is switched off on this deployment, so that a
 * caller learns why rather than being pointed at the route list it is missing from.
 */
export function routeMissingHint(path: string): string {
  if (path.startsWith("/v1/mor/")) {
    return (
      "This deployment offers no subscription (no merchant-of-record provider configured; GET /v1/pricing " +
      "says subscription.available false). Pay per call or with prepaid credits instead."
    );
  }
  if (path === "/v1/stats") {
    return "Operator statistics are disabled on this deployment (no OPERATOR_KEY configured).";
  }
  return "See GET /openapi.json or GET /llms.txt for the routes this service answers.";
}
