import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import type { AppEnv } from "../../src/http/env.ts";
import type {
  ExampleRequest,
  ExampleResponse,
  ExamplesFile,
  OperationExamples,
} from "../../src/http/openapi-examples.ts";
import { ingestPlacsp } from "../../src/ingest/placsp/ingest-placsp.ts";
import { loadCpvLabels, loadNutsNames } from "../../src/ingest/refdata/load-reference.ts";
import type { HttpOptions } from "../../src/ingest/sources/http.ts";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import { sha256Hex } from "../../src/lib/ids.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { listTools } from "../../src/mcp/tools.ts";
import { createPayments } from "../../src/payments/index.ts";
import { createPaddleProvider, paddleSignature } from "../../src/payments/subscription/paddle.ts";
import type { CheckoutRequest, MorProvider } from "../../src/payments/subscription/provider.ts";
import { resolveX402Settings } from "../../src/payments/x402/index.ts";

/**
 * Builds the OpenAPI request/response examples and the MCP tools' example calls from real data: the shared
 * PLACSP and TED fixtures (and CPV/NUTS reference data) go through the real ingestion pipeline into `db` (fresh,
 * migrated, empty), then every operation is called through the real app, and what was sent and answered is
 * recorded. Any status other than the expected one stops the run: an example is always a behaviour that holds.
 *
 * Deterministic by construction, so that the committed file changes only when behaviour does: the service
 * runs on a fixed clock, every request carries an X-Request-Id derived from its example's name (the service
 * echoes it in meta.request_id), and the few values that are random by design are replaced (EXAMPLE_DEV_TOKEN).
 */

/**
 * The clock. Chosen so that the fixtures' open tenders and renewal windows are current (published within the
 * last 90 days, windows overlapping the next 12 months): the opportunities, renewals and research examples
 * are then not empty.
 */
export const EXAMPLES_CLOCK = "2026-01-15T10:00:00.000Z";
/** The base URL the examples' links use (the README's local server). */
export const EXAMPLES_BASE_URL = "http://localhost:8080";

/** x402's own documentation example recipient: a placeholder for X402_PAY_TO, nobody's wallet. */
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const OPERATOR_KEY = "example-operator-key-0123456789";
const CLIENT_KEY = "example-client-key-0123456789";
const SUBSCRIBER_KEY = "example-subscriber-key-0123456789";
const UNKNOWN_CLIENT_KEY = "example-unknown-key-0123456789";
const MOR_SECRET = "pdl_ntfset_01examples_secretsecretsecret";
/** Ids no fixture comes near: the not_found examples. */
const MISSING_ID = 999999;

/**
 * What is replaced (docs/decisions.md, OpenAPI examples): the dev faucet's random token (a fixed one, with its
 * SHA-256 as proof, as the service computes it) and /health's database engine (postgres, the production
 * engine, whichever engine made the file: the file is the same on both).
 */
const EXAMPLE_DEV_TOKEN = `dev_${"A".repeat(32)}`;

const log = createLogger("silent");
const clock = () => new Date(EXAMPLES_CLOCK);

type App = OpenAPIHono<AppEnv>;

export interface BuildOptions {
  /** A fresh, migrated, empty database. */
  db: Db;
  /** The shared directory: fixtures/ and data/ (the repository's ../shared). */
  sharedDir: string;
}

export async function buildOpenApiExamples(options: BuildOptions): Promise<ExamplesFile> {
  const { db } = options;
  const shared = options.sharedDir.endsWith("/") ? options.sharedDir : `${options.sharedDir}/`;
  const fixtures = await ingestFixtures(db, shared);

  const provider = standInProvider();
  const dev = buildApp(db, "dev", provider);
  const x402 = buildApp(db, "x402", provider);
  const limited = buildApp(db, "dev", provider, { RATE_LIMIT_PER_MINUTE: "1", RATE_LIMIT_BURST: "1" });
  const recorder = new Recorder(dev);

  // Discovery (free).
  await recorder.success("getPricing", "GET /v1/pricing", { method: "GET", path: "/v1/pricing" });
  await recorder.success("getDemo", "GET /v1/demo", { method: "GET", path: "/v1/demo" });
  await recorder.success(
    "getHealth",
    "GET /health",
    { method: "GET", path: "/health" },
    {
      normalise: (value) => withEngine(value, "postgres"),
    },
  );
  await recorder.success(
    "getMcpServerCard",
    "GET /.well-known/mcp/server-card.json",
    { method: "GET", path: "/.well-known/mcp/server-card.json" },
    {
      note: "excerpt: the first tool of the list",
      normalise: (value) => ({
        ...(value as object),
        tools: (value as { tools: unknown[] }).tools.slice(0, 1),
      }),
    },
  );
  await recorder.success(
    "getOpenApi",
    "GET /openapi.json",
    { method: "GET", path: "/openapi.json" },
    {
      note: "excerpt: the top-level fields; paths and components (this document) left out",
      normalise: (value) => omit(value, ["paths", "components"]),
    },
  );
  await recorder.success(
    "getLlmsTxt",
    "GET /llms.txt",
    { method: "GET", path: "/llms.txt" },
    {
      note: "excerpt: up to the list of endpoints",
      normalise: (value) => `${String(value).split("\n## Paid endpoints")[0]}\n…\n`,
    },
  );

  // The dev faucet.
  await recorder.success(
    "devFaucet",
    "POST /v1/dev-faucet",
    { method: "POST", path: "/v1/dev-faucet", body: { endpoint: "GET /v1/tenders/:id" } },
    {
      normalise: (value) => ({
        ...(value as object),
        token: EXAMPLE_DEV_TOKEN,
        proof: sha256Hex(EXAMPLE_DEV_TOKEN),
      }),
    },
  );
  await recorder.error("devFaucet", 400, "unknown_endpoint", {
    method: "POST",
    path: "/v1/dev-faucet",
    body: { endpoint: "GET /v1/tender/:id" },
  });

  // Search, then the records its first rows name: what an agent does.
  const search = { method: "GET", path: "/v1/search", query: { cpv: "72", size: 3 } } as const;
  const rows = (await recorder.success("search", "GET /v1/search", search, { pay: true }))
    .data as SearchRow[];
  await recorder.error("search", 400, "size_out_of_range", {
    ...search,
    query: { ...search.query, size: 500 },
  });
  await recorder.unpaid(x402, "search", search);

  // The first row of another notice than the newest row's (on these fixtures a lot of a Belgian ICT framework,
  // TED 611835-2024, with more to show than the single-lot newest one): its tender, its winner, its buyer.
  const row = rows.find((r) => r.tender_source_ref !== rows[0]?.tender_source_ref) ?? rows[0];
  if (!row?.tender_id || !row.company || !row.buyer) {
    throw new Error(
      `the CPV 72 search found no award row with a tender, winner and buyer: ${JSON.stringify(rows)}`,
    );
  }
  await recordRecord(recorder, x402, "getTender", "/v1/tenders/{id}", row.tender_id);
  await recordRecord(recorder, x402, "getCompany", "/v1/companies/{id}", row.company.id);
  await recordRecord(recorder, x402, "listCompanyAwards", "/v1/companies/{id}/awards", row.company.id, {
    size: 2,
  });
  await recordRecord(recorder, x402, "getBuyerHistory", "/v1/buyers/{id}/history", row.buyer.id);

  // Opportunities: a company whose history fits a tender open on the clock's day (a Dutch works contractor;
  // no IT company of the fixtures has one).
  const contractor = (
    (await recorder.internal(
      { method: "GET", path: "/v1/search", query: { company: "Hegeman" } },
      { pay: "GET /v1/search" },
    )) as {
      data: SearchRow[];
    }
  ).data[0]?.company;
  if (!contractor) {
    throw new Error("the fixtures no longer hold the company Hegeman Bouw & Infra B.V.");
  }
  await recordRecord(
    recorder,
    x402,
    "listCompanyOpportunities",
    "/v1/companies/{id}/opportunities",
    contractor.id,
    { size: 5 },
  );

  // Renewals and research. The fixtures' buyers published nothing related before their awards, so their signals are
  // low: the example asks for them (the default lists medium and up).
  const renewals = {
    method: "GET",
    path: "/v1/renewals",
    query: { window_months: 12, min_confidence: "low", size: 2 },
  } as const;
  await recorder.success("listRenewals", "GET /v1/renewals", renewals, { pay: true });
  await recorder.error("listRenewals", 400, "window_out_of_range", {
    ...renewals,
    query: { window_months: 48 },
  });
  await recorder.unpaid(x402, "listRenewals", renewals);

  const research = { method: "POST", path: "/v1/research", body: { query: "equipos", limit: 3 } } as const;
  await recorder.success("research", "POST /v1/research", research, { pay: true });
  await recorder.error("research", 400, "query_missing", { ...research, body: { limit: 3 } });
  await recorder.unpaid(x402, "research", research);

  // Prepaid credits: buy a bundle, read the balance.
  const purchase = {
    method: "POST",
    path: "/v1/billing/credits/{amount}",
    params: { amount: "5" },
    headers: { "x-client-key": CLIENT_KEY },
  } as const;
  await recorder.success("buyCredits", "POST /v1/billing/credits/:amount", purchase, {
    pay: "POST /v1/billing/credits/5",
  });
  await recorder.error("buyCredits", 400, "not_a_bundle", { ...purchase, params: { amount: "7" } });
  await recorder.unpaid(x402, "buyCredits", purchase);

  const balance = { method: "GET", path: "/v1/billing", headers: { "x-client-key": CLIENT_KEY } } as const;
  await recorder.success("getBilling", "GET /v1/billing", balance);
  await recorder.error("getBilling", 400, "key_too_short", {
    ...balance,
    headers: { "x-client-key": "short" },
  });
  await recorder.error("getBilling", 404, "no_account", {
    ...balance,
    headers: { "x-client-key": UNKNOWN_CLIENT_KEY },
  });

  // The subscription: a checkout, then the provider's signed payment notification.
  const checkout = {
    method: "POST",
    path: "/v1/mor/checkout",
    headers: { "x-client-key": SUBSCRIBER_KEY },
    body: { email: "buyer@example.com" },
  } as const;
  await recorder.success("morCheckout", "POST /v1/mor/checkout", checkout);
  await recorder.error("morCheckout", 400, "invalid_email", { ...checkout, body: { email: "buyer@" } });

  const event = transactionCompleted(provider.checkouts[0]);
  const ts = Math.floor(clock().getTime() / 1000);
  const signature = `ts=${ts};h1=${paddleSignature(event, ts, MOR_SECRET)}`;
  const webhook = {
    method: "POST",
    path: "/v1/mor/webhook",
    headers: { "paddle-signature": signature },
    body: JSON.parse(event) as unknown,
    rawBody: event,
  } as const;
  await recorder.success("morWebhook", "POST /v1/mor/webhook", webhook);
  await recorder.error("morWebhook", 400, "bad_signature", {
    ...webhook,
    headers: { "paddle-signature": `ts=${ts};h1=${paddleSignature(event, ts, "not-the-webhook-secret")}` },
  });

  // Operator statistics, after every paid example above.
  const stats = { method: "GET", path: "/v1/stats", headers: { "x-operator-key": OPERATOR_KEY } } as const;
  await recorder.success("getStats", "GET /v1/stats", stats);
  await recorder.error("getStats", 401, "no_key", { method: "GET", path: "/v1/stats" });
  await recorder.error("getStats", 403, "wrong_key", {
    ...stats,
    headers: { "x-operator-key": "not-the-operator-key" },
  });

  // The rate limiter answers every route alike: one example for all.
  await recorder.internal({ method: "GET", path: "/v1/pricing" }, { app: limited });
  const rateLimited = await recorder.shared(limited, 429, "rate_limited", {
    method: "GET",
    path: "/v1/pricing",
  });

  const tools = await toolExamples(recorder);
  return {
    $comment:
      "Generated by `npm run openapi-examples` (scripts/openapi-examples/): the shared fixtures ingested through " +
      "the real pipeline, every route called through the real app. Do not edit by hand.",
    clock: EXAMPLES_CLOCK,
    base_url: EXAMPLES_BASE_URL,
    fixtures,
    operations: sortKeys(recorder.operations),
    shared: { "429": rateLimited },
    tools,
  };
}

interface SearchRow {
  tender_id: number | null;
  tender_source_ref: string | null;
  company: { id: number; name: string } | null;
  buyer: { id: number; name: string } | null;
}

/** A record route by id: found (paid), an invalid id, unpaid (x402 mode), and an id that does not exist. */
async function recordRecord(
  recorder: Recorder,
  x402: App,
  operationId: string,
  template: string,
  id: number,
  query?: Record<string, number>,
): Promise<void> {
  const endpoint = `GET ${template.replace("{id}", ":id")}`;
  const request: Call = { method: "GET", path: template, params: { id }, ...(query ? { query } : {}) };
  await recorder.success(operationId, endpoint, request, { pay: true });
  await recorder.error(operationId, 400, "id_not_an_integer", { ...request, params: { id: "abc" } });
  await recorder.unpaid(x402, operationId, request);
  await recorder.error(
    operationId,
    404,
    "no_such_id",
    { ...request, params: { id: MISSING_ID } },
    { pay: true },
  );
}

/** Loads CPV labels and NUTS names, then ingests every PLACSP and TED fixture as `ingest` would. */
async function ingestFixtures(db: Db, shared: string): Promise<string[]> {
  await loadCpvLabels(db, `${shared}data/cpv/cpv2008.csv`);
  await loadNutsNames(db, `${shared}data/nuts/nuts.csv`);
  const deps = { db, log, now: clock };
  const http: HttpOptions = {
    userAgent: "openapi-examples",
    timeoutMs: 1,
    retries: 0,
    baseDelayMs: 1,
    maxDelayMs: 1,
  };
  await ingestPlacsp(deps, {
    source: `${shared}fixtures/placsp`,
    feed: null,
    since: null,
    maxPages: null,
    batchSize: 500,
    http,
  });
  await ingestTed(deps, {
    source: `${shared}fixtures/ted`,
    since: null,
    maxNotices: null,
    batchSize: 250,
    http,
    query: { apiQuery: null, cpvPrefixes: [], countries: [] },
    lookbackDays: 1,
  });
  const files: string[] = [];
  for (const source of ["placsp", "ted"]) {
    const names = (await readdir(`${shared}fixtures/${source}`))
      .filter((n) => /\.(atom|xml)$/.test(n))
      .sort();
    files.push(...names.map((name) => `fixtures/${source}/${name}`));
  }
  return files;
}

/**
 * The subscription provider: Paddle's own webhook verification and event parsing, with the one network call
 * (opening a hosted checkout) answered in process, the way Paddle answers it (a `txn_…` id and a checkout URL).
 */
function standInProvider(): MorProvider & { checkouts: (CheckoutRequest & { id: string })[] } {
  const paddle = createPaddleProvider({
    apiUrl: "http://127.0.0.1:9",
    apiKey: "pdl_apikey_examples",
    priceId: "pri_01examples0000000000000000",
    webhookSecret: MOR_SECRET,
    toleranceSeconds: 5,
  });
  const checkouts: (CheckoutRequest & { id: string })[] = [];
  return {
    name: paddle.name,
    checkouts,
    async createCheckout(request) {
      const id = `txn_01examples${String(checkouts.length + 1).padStart(16, "0")}`;
      checkouts.push({ ...request, id });
      return { id, url: `https://checkout.example.com/pay?_ptxn=${id}` };
    },
    verifyWebhook: (rawBody, header, now) => paddle.verifyWebhook(rawBody, header, now),
    parseEvent: (rawBody) => paddle.parseEvent(rawBody),
  };
}

/** Paddle's `transaction.completed` for a checkout the service opened (its custom_data echoed). */
function transactionCompleted(checkout: (CheckoutRequest & { id: string }) | undefined): string {
  if (!checkout) {
    throw new Error("no checkout was opened before the webhook example");
  }
  return JSON.stringify({
    event_id: "evt_01examples0000000000000001",
    event_type: "transaction.completed",
    occurred_at: "2026-01-15T09:59:58.000000Z",
    notification_id: "ntf_01examples0000000000000001",
    data: {
      id: checkout.id,
      status: "completed",
      customer_id: "ctm_01examples0000000000000001",
      origin: "web",
      subscription_id: "sub_01examples0000000000000001",
      custom_data: checkout.customData,
      currency_code: "EUR",
      collection_mode: "automatic",
      details: {
        totals: { subtotal: "2397", tax: "503", total: "2900", grand_total: "2900", currency_code: "EUR" },
      },
      items: [{ price: { id: "pri_01examples0000000000000000" }, quantity: 1 }],
    },
  });
}

function buildApp(
  db: Db,
  mode: "dev" | "x402",
  provider: MorProvider,
  env: Record<string, string> = {},
): App {
  const config = loadConfig({
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_MINUTE: "0",
    PUBLIC_BASE_URL: EXAMPLES_BASE_URL,
    PAYMENTS_MODE: mode,
    OPERATOR_KEY,
    MOR_API_KEY: "pdl_apikey_examples",
    MOR_PRICE_ID: "pri_01examples0000000000000000",
    MOR_WEBHOOK_SECRET: MOR_SECRET,
    ...(mode === "x402" ? { X402_PAY_TO: PAY_TO } : {}),
    ...env,
  });
  const payments = createPayments({
    db,
    now: clock,
    mode,
    devTokenTtlSeconds: config.DEV_TOKEN_TTL_SECONDS,
    subscription: {
      provider,
      priceMonthlyCents: config.MOR_PRICE_MONTHLY_CENTS,
      grantCents: config.MOR_GRANT_CENTS,
    },
    // Only unpaid calls are made in x402 mode: the facilitator is never asked.
    x402:
      mode === "x402"
        ? {
            settings: resolveX402Settings(config),
            facilitator: {
              verify: () => Promise.reject(new Error("the examples never pay over x402")),
              settle: () => Promise.reject(new Error("the examples never pay over x402")),
            },
          }
        : undefined,
  });
  return createApp({ config, domain: { db, log, now: clock }, payments });
}

/** One HTTP call: `path` may hold `{name}` placeholders filled from `params`. */
interface Call {
  method: "GET" | "POST";
  path: string;
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  body?: unknown;
  /** The exact bytes to send (a signed webhook); `body` is then what it parses to. */
  rawBody?: string;
}

interface RecordOptions {
  /** Pay with a dev-faucet token: `true` for the operation's endpoint, or the price-table endpoint to pay. */
  pay?: boolean | string;
  /** Said after the call in the example's summary. */
  note?: string;
  normalise?: (value: unknown) => unknown;
}

class Recorder {
  readonly operations: Record<string, OperationExamples> = {};
  private readonly app: App;

  constructor(app: App) {
    this.app = app;
  }

  /** The success example of an operation; its request becomes the operation's request example. */
  async success(operationId: string, endpoint: string, call: Call, options: RecordOptions = {}) {
    const paidEndpoint = options.pay === true ? endpoint : options.pay || undefined;
    const { value, contentType } = await this.send(this.app, operationId, "success", call, 200, paidEndpoint);
    const recorded = options.normalise ? options.normalise(value) : value;
    const line = callLine(call);
    const how = paidEndpoint ? "paid with a dev-faucet token in X-PAYMENT" : undefined;
    this.operations[operationId] = {
      endpoint,
      request: requestOf(call),
      call: line,
      responses: {
        "200": {
          name: "success",
          summary: [line, how, options.note].filter(Boolean).join("; "),
          contentType,
          value: recorded,
        },
      },
    };
    return value as { data?: unknown };
  }

  /** An error example (the success example of the operation must come first). */
  async error(operationId: string, status: number, name: string, call: Call, options: RecordOptions = {}) {
    const operation = this.operations[operationId];
    if (!operation) {
      throw new Error(`record the success example of ${operationId} first`);
    }
    const paidEndpoint = options.pay === true ? operation.endpoint : options.pay || undefined;
    const { value, contentType } = await this.send(this.app, operationId, name, call, status, paidEndpoint);
    const how = paidEndpoint ? "paid with a dev-faucet token: nothing is charged" : undefined;
    operation.responses[String(status)] = {
      name,
      summary: [callLine(call), how].filter(Boolean).join("; "),
      contentType,
      value,
    };
  }

  /** The 402 of a priced operation, as an x402-mode (production) service answers it. */
  async unpaid(x402: App, operationId: string, call: Call) {
    const operation = this.operations[operationId];
    if (!operation) {
      throw new Error(`record the success example of ${operationId} first`);
    }
    const { value, contentType } = await this.send(x402, operationId, "payment_required", call, 402);
    operation.responses["402"] = {
      name: "payment_required",
      summary: `${callLine(call)}; no payment (PAYMENTS_MODE=x402; dev mode offers a dev-faucet entry in accepts)`,
      contentType,
      value,
    };
  }

  /** An answer every operation shares. */
  async shared(app: App, status: number, name: string, call: Call): Promise<ExampleResponse> {
    const { value, contentType } = await this.send(app, "shared", name, call, status);
    return { name, summary: `${callLine(call)} once too often`, contentType, value };
  }

  /** A call whose answer is used, not recorded (paid with a dev-faucet token for `pay`). */
  async internal(call: Call, options: { app?: App; pay?: string } = {}): Promise<unknown> {
    return (
      await this.send(options.app ?? this.app, "internal", callLine(call), call, undefined, options.pay)
    ).value;
  }

  /** A priced call over MCP, paid with a dev-faucet token: its structuredContent. */
  async tool(name: string, args: Record<string, unknown>, endpoint: string | null) {
    const token = endpoint ? await this.devToken(endpoint) : undefined;
    const { value } = await this.send(
      this.app,
      "tools",
      name,
      {
        method: "POST",
        path: "/mcp",
        headers: { accept: "application/json, text/event-stream" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: token ? { ...args, payment_token: token } : args },
        },
      },
      200,
    );
    const result = (value as { result?: { isError?: boolean; structuredContent?: unknown } }).result;
    if (!result || result.isError) {
      throw new Error(`MCP ${name} ${JSON.stringify(args)} failed: ${JSON.stringify(value)}`);
    }
    return result.structuredContent as Record<string, unknown>;
  }

  private async devToken(endpoint: string): Promise<string> {
    const { value } = await this.send(
      this.app,
      "faucet",
      endpoint,
      { method: "POST", path: "/v1/dev-faucet", body: { endpoint } },
      200,
    );
    return (value as { token: string }).token;
  }

  private async send(
    app: App,
    scope: string,
    name: string,
    call: Call,
    expected: number | undefined,
    paidEndpoint?: string,
  ): Promise<{ value: unknown; contentType: string }> {
    const headers: Record<string, string> = {
      "x-request-id": requestId(`${scope}/${name}`),
      ...call.headers,
    };
    if (paidEndpoint) {
      headers["x-payment"] = await this.devToken(paidEndpoint);
    }
    if (call.body !== undefined) {
      headers["content-type"] = "application/json";
    }
    const res = await app.request(urlOf(call), {
      method: call.method,
      headers,
      body: call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body)),
    });
    const contentType = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    const value = contentType === "application/json" ? await res.json() : await res.text();
    if (expected !== undefined && res.status !== expected) {
      throw new Error(
        `${call.method} ${urlOf(call)} answered ${res.status}, expected ${expected}: ${JSON.stringify(value)}`,
      );
    }
    return { value, contentType };
  }
}

/**
 * The MCP tools' example calls: the arguments of the REST example of the same verb (path, query and body
 * parameters; x-client-key as client_key), checked by calling the tool through POST /mcp: a priced tool must
 * answer the same data as its REST twin.
 */
const TOOL_OPERATIONS: Record<string, string> = {
  search_tenders: "search",
  get_tender: "getTender",
  get_company: "getCompany",
  get_company_awards: "listCompanyAwards",
  get_company_opportunities: "listCompanyOpportunities",
  get_buyer_history: "getBuyerHistory",
  get_renewals: "listRenewals",
  get_pricing: "getPricing",
  research: "research",
  billing_get_balance: "getBilling",
  billing_purchase_credits: "buyCredits",
};

async function toolExamples(recorder: Recorder): Promise<ExamplesFile["tools"]> {
  const tools: ExamplesFile["tools"] = {};
  // The purchase last: it changes the balance the balance tool reads.
  const ordered = [...listTools()].sort(
    (a, b) => Number(a.kind === "purchase") - Number(b.kind === "purchase"),
  );
  for (const tool of ordered) {
    const operationId = TOOL_OPERATIONS[tool.name];
    const operation = operationId ? recorder.operations[operationId] : undefined;
    if (!operation) {
      throw new Error(`MCP tool ${tool.name} has no REST example to take its arguments from`);
    }
    const { path, query, body, headers } = operation.request;
    const args: Record<string, unknown> = {
      ...path,
      ...query,
      ...(typeof body === "object" && body !== null ? body : {}),
      ...(headers?.["x-client-key"] ? { client_key: headers["x-client-key"] } : {}),
    };
    const endpoint =
      tool.kind === "priced"
        ? tool.endpoint
        : tool.kind === "purchase"
          ? `POST /v1/billing/credits/${String(args.amount)}`
          : null;
    const answer = await recorder.tool(tool.name, args, endpoint);
    const rest = operation.responses["200"]?.value as { data?: unknown } | undefined;
    if (tool.kind !== "purchase" && !isDeepStrictEqual(answer.data, rest?.data)) {
      throw new Error(`MCP ${tool.name} answered other data than ${operation.endpoint}`);
    }
    tools[tool.name] = { arguments: args };
  }
  return sortKeys(tools);
}

/** The request as the OpenAPI examples give it: typed parameters by location, and the body. */
function requestOf(call: Call): ExampleRequest {
  const request: ExampleRequest = {};
  if (call.params) {
    request.path = call.params;
  }
  if (call.query) {
    request.query = call.query;
  }
  if (call.headers) {
    request.headers = call.headers;
  }
  if (call.body !== undefined) {
    request.body = call.body;
  }
  return request;
}

function urlOf(call: Call): string {
  const path = call.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(call.params?.[name] ?? `{${name}}`)),
  );
  const query = new URLSearchParams(
    Object.entries(call.query ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
  );
  return query.size > 0 ? `${path}?${query}` : path;
}

/** `GET /v1/search?cpv=72&size=3`, `POST /v1/research {"query":…}`, with the headers that matter. */
function callLine(call: Call): string {
  const headers = Object.entries(call.headers ?? {})
    .filter(([name]) => name !== "accept")
    // A signature is noise in a one-line description (the request example has it whole).
    .map(([name, value]) => `${name}: ${value.length > 40 ? `${value.slice(0, 30)}…` : value}`);
  return [
    `${call.method} ${urlOf(call)}`,
    ...(headers.length > 0 ? [`(header ${headers.join(", ")})`] : []),
    ...(call.body !== undefined && !call.rawBody ? [JSON.stringify(call.body)] : []),
    ...(call.rawBody ? ["(a signed transaction.completed event)"] : []),
  ].join(" ");
}

/** A v4-shaped UUID derived from the example's name: the request id the service echoes. */
function requestId(name: string): string {
  const hex = createHash("sha256").update(name).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function withEngine(value: unknown, engine: string): unknown {
  const health = value as { database?: Record<string, unknown> };
  return { ...health, database: { ...health.database, engine } };
}

function omit(value: unknown, keys: string[]): unknown {
  return Object.fromEntries(Object.entries(value as object).filter(([key]) => !keys.includes(key)));
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  // Code-unit order: the same on every machine, whatever its locale.
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
