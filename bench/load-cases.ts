import autocannon from "autocannon";

/**
 * What the load benchmark sends: one case per route, each a small fixed mix cycled request by request across
 * every connection, and the autocannon run that sends it. Paid cases pay from a prepaid credit key
 * (`x-client-key`, or the MCP tool's `client_key` argument), so every counted 200 went through the payment
 * gate's debit (one guarded UPDATE and one ledger row in a transaction) as a production call does.
 */

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadCase {
  /** The route, as the report's tables name it. */
  route: string;
  /** What the mix is. */
  mix: string;
  /** Price of one call in USD cents (0: free); paid calls are checked against the keys' balances. */
  priceCents: number;
  /** The prepaid keys that pay, cycled request by request (paid cases only). */
  keys: readonly string[];
  /** The next request of the mix (called once per request sent). */
  next(): LoadRequest;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Connection errors and timeouts (no answer at all). */
  errors: number;
}

/** Words of the synthetic corpus's lexicon (frequent, mid, rare) and filters a user would combine. */
const SEARCHES = [
  "/v1/search?q=servicio",
  "/v1/search?q=mantenimiento%20de%20software",
  "/v1/search?q=ciberseguridad",
  "/v1/search?cpv=72",
  "/v1/search?type=tender&region=ES3",
  "/v1/search?q=servicio&cpv=72&from=2022-01-01",
  "/v1/search",
  "/v1/search?type=contract&q=suministro&page=3",
];
const SEARCH_ARGS: Record<string, unknown>[] = [
  { q: "servicio" },
  { q: "mantenimiento de software" },
  { q: "ciberseguridad" },
  { cpv: "72" },
  { type: "tender", region: "ES3" },
  { q: "servicio", cpv: "72", from: "2022-01-01" },
  {},
  { type: "contract", q: "suministro", page: 3 },
];

function cycle<T>(items: readonly T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length] as T;
}

/** Funded prepaid keys of the paid routes: one per client, and the one key of the single-client row. */
export interface LoadKeys {
  search: readonly string[];
  tender: readonly string[];
  tenderSingle: string;
  mcp: readonly string[];
}

/** The key names of one run: `clients` keys per paid route (each a client of its own) and one more. */
export function loadKeyNames(clients: number): LoadKeys {
  const names = (route: string) =>
    Array.from({ length: clients }, (_, i) => `bench-load-${route}-key-${String(i + 1).padStart(4, "0")}`);
  return {
    search: names("search"),
    tender: names("tender"),
    tenderSingle: "bench-load-tender-single-key",
    mcp: names("mcp"),
  };
}

/**
 * The cases of one run. Paid routes are called by as many clients (keys) as there are connections, cycled
 * request by request, as many users would call them; one more row sends every tender call from one key, whose
 * debits queue on its balance row (one account's calls are serialised by design: the balance is exact).
 */
export function loadCases(picks: { tenderIds: readonly number[]; keys: LoadKeys }): LoadCase[] {
  const search = cycle(SEARCHES);
  const tender = cycle(picks.tenderIds);
  const mcpArgs = cycle(SEARCH_ARGS);
  const searchKey = cycle(picks.keys.search);
  const tenderKey = cycle(picks.keys.tender);
  const mcpKey = cycle(picks.keys.mcp);
  let rpcId = 0;
  const clients = (keys: readonly string[]) => `${keys.length} keys`;
  return [
    {
      route: "GET /health",
      mix: "free; one database round trip",
      priceCents: 0,
      keys: [],
      next: () => get("/health"),
    },
    {
      route: "GET /v1/pricing",
      mix: "free; no database",
      priceCents: 0,
      keys: [],
      next: () => get("/v1/pricing"),
    },
    {
      route: "GET /v1/search",
      mix: `paid, ${clients(picks.keys.search)}; ${SEARCHES.length} queries cycled (words frequent to rare, CPV, region, dates, a page)`,
      priceCents: 2,
      keys: picks.keys.search,
      next: () => get(search(), { "x-client-key": searchKey() }),
    },
    {
      route: "GET /v1/tenders/:id",
      mix: `paid, ${clients(picks.keys.tender)}; ${picks.tenderIds.length.toLocaleString("en")} tender ids cycled`,
      priceCents: 2,
      keys: picks.keys.tender,
      next: () => get(`/v1/tenders/${tender()}`, { "x-client-key": tenderKey() }),
    },
    {
      route: "GET /v1/tenders/:id, one key",
      mix: "paid, every call from one key; the same tender ids",
      priceCents: 2,
      keys: [picks.keys.tenderSingle],
      next: () => get(`/v1/tenders/${tender()}`, { "x-client-key": picks.keys.tenderSingle }),
    },
    {
      route: "POST /mcp tools/call",
      mix: `paid, ${clients(picks.keys.mcp)}; search_tenders with client_key, the same ${SEARCH_ARGS.length} queries cycled`,
      priceCents: 2,
      keys: picks.keys.mcp,
      next: () => ({
        method: "POST",
        path: "/mcp",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++rpcId,
          method: "tools/call",
          params: { name: "search_tenders", arguments: { ...mcpArgs(), client_key: mcpKey() } },
        }),
      }),
    },
  ];
}

function get(path: string, headers: Record<string, string> = {}): LoadRequest {
  return { method: "GET", path, headers };
}

/**
 * Sends `loadCase` from `connections` keep-alive connections for `seconds`; with several base URLs the
 * connections are dealt to them in turn (autocannon's own round robin), which spreads clients over replicas.
 */
export async function runLoad(
  loadCase: LoadCase,
  bases: readonly string[],
  options: { connections: number; seconds: number },
): Promise<LoadResult> {
  const result = await autocannon({
    // Several URLs are supported at run time (connection i goes to url i mod n); the types know one.
    url: bases as unknown as string,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        setupRequest: (request) => {
          const next = loadCase.next();
          return {
            ...request,
            method: next.method,
            path: next.path,
            headers: { ...request.headers, ...next.headers },
            body: next.body ?? "",
          };
        },
      },
    ],
  });
  const requests = result.requests.total;
  return {
    requests,
    seconds: result.duration,
    perSecond: requests / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
