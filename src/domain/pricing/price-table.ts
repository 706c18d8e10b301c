import { centsToUsd } from "../../lib/money.ts";

/**
 * The one price table of the service (SPEC.md, Endpoints). Pricing, the payment gate, OpenAPI, llms.txt and
 * the MCP tools all read prices from here; nothing else writes a price down. Endpoints are named as the spec
 * names them: `METHOD /path/:param`.
 */
export interface PriceEntry {
  endpoint: string;
  /** Price per call in USD cents; 0 for free endpoints. */
  priceCents: number;
  free: boolean;
  /** One line for llms.txt and OpenAPI summaries. */
  summary: string;
}

const paid = (endpoint: string, priceCents: number, summary: string): PriceEntry => ({
  endpoint,
  priceCents,
  free: false,
  summary,
});
const free = (endpoint: string, summary: string): PriceEntry => ({
  endpoint,
  priceCents: 0,
  free: true,
  summary,
});

export const PRICE_TABLE: readonly PriceEntry[] = [
  paid("GET /v1/search", 2, "Full-text and structured search over tenders, awards and contracts."),
  paid("GET /v1/tenders/:id", 2, "One tender with its awards and provenance."),
  paid("GET /v1/companies/:id", 5, "Company profile with win aggregates, top CPVs and top buyers."),
  paid("GET /v1/companies/:id/awards", 5, "A company's awards, newest first, with tender context."),
  paid("GET /v1/companies/:id/opportunities", 10, "Open tenders that fit a company's award history."),
  paid("GET /v1/buyers/:id/history", 5, "A buyer's recent awards, supplier concentration and recurrence."),
  paid("GET /v1/renewals", 25, "Re-tender forecast signals (deterministic heuristic, not probabilities)."),
  paid("POST /v1/research", 50, "Deterministic research brief for a topic."),
  paid("POST /v1/billing/credits/5", 500, "Buy 5 USD of prepaid credits for a client key."),
  paid("POST /v1/billing/credits/10", 1000, "Buy 10 USD of prepaid credits for a client key."),
  paid("POST /v1/billing/credits/25", 2500, "Buy 25 USD of prepaid credits for a client key."),
  free("GET /v1/pricing", "Prices, payment methods and the payment flow."),
  free("GET /v1/demo", "One labeled sample tender and one sample renewal signal."),
  free("GET /v1/billing", "Prepaid credit balance for a client key."),
  free("GET /v1/stats", "Operator statistics (needs x-operator-key)."),
];

const byEndpoint = new Map(PRICE_TABLE.map((entry) => [entry.endpoint, entry]));

/** The entry for an endpoint name, or undefined when the endpoint is not in the table. */
export function findPrice(endpoint: string): PriceEntry | undefined {
  return byEndpoint.get(endpoint);
}

/** The entry for an endpoint that must exist (route definitions): a typo fails at start-up, not per call. */
export function priceOf(endpoint: string): PriceEntry {
  const entry = byEndpoint.get(endpoint);
  if (!entry) {
    throw new Error(`endpoint not in the price table: ${endpoint}`);
  }
  return entry;
}

export function priceUsd(entry: PriceEntry): string {
  return centsToUsd(entry.priceCents);
}

/**
 * Whether a price-table endpoint is answered by one of the routes the app actually serves. Route patterns use
 * `:param` segments, so `POST /v1/billing/credits/:amount` serves `POST /v1/billing/credits/5`.
 */
export function isServedBy(endpoint: string, routes: readonly string[]): boolean {
  const [method, path = ""] = endpoint.split(" ");
  const segments = path.split("/");
  return routes.some((route) => {
    const [routeMethod, routePath = ""] = route.split(" ");
    const routeSegments = routePath.split("/");
    return (
      routeMethod === method &&
      routeSegments.length === segments.length &&
      routeSegments.every((segment, i) => segment.startsWith(":") || segment === segments[i])
    );
  });
}
