import { decodePaymentRequiredHeader } from "@x402/core/http";
import { type DiscoveryExtension, validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { beforeAll, describe, expect, it } from "vitest";
import { PRICE_TABLE } from "../../src/domain/pricing/price-table.ts";
import { PaymentRequiredSchema } from "../../src/http/errors.ts";
import { buildTestApp, getJson, postJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

/**
 * Issue 16 (items 3 and 5): clients that pay from the schema. The OpenAPI document declares every way to pay
 * and the 402 / 429 headers; the 402 has one shape in dev and x402 mode; PAYMENT-REQUIRED fits a proxy's
 * header buffer; CORS, 405 with Allow, RateLimit headers; small wording fixes.
 */

const t = useTestDb();
const BASE = "http://localhost";
const CLIENT_KEY = "payable-test-client-key-01";
let tenderId = 0;

beforeAll(async () => {
  tenderId = await insertTender(t.db, { sourceRef: "payable-1", title: "Redes" });
});

type App = ReturnType<typeof buildTestApp>["app"];
type Json = Record<string, unknown>;
type ErrorBody = { error: { code: string; message: string; hint: string } };

/** One request per priced price-table entry (bundles included), with a valid input. */
const PRICED_CALLS: { endpoint: string; method: string; path: string; body?: unknown }[] = [
  { endpoint: "GET /v1/search", method: "GET", path: "/v1/search?q=redes" },
  { endpoint: "GET /v1/tenders/:id", method: "GET", path: "/v1/tenders/1" },
  { endpoint: "GET /v1/companies/:id", method: "GET", path: "/v1/companies/1" },
  { endpoint: "GET /v1/companies/:id/awards", method: "GET", path: "/v1/companies/1/awards" },
  { endpoint: "GET /v1/companies/:id/opportunities", method: "GET", path: "/v1/companies/1/opportunities" },
  { endpoint: "GET /v1/buyers/:id/history", method: "GET", path: "/v1/buyers/1/history" },
  { endpoint: "GET /v1/renewals", method: "GET", path: "/v1/renewals?window_months=6" },
  { endpoint: "POST /v1/research", method: "POST", path: "/v1/research", body: { query: "ciberseguridad" } },
  { endpoint: "POST /v1/billing/credits/5", method: "POST", path: "/v1/billing/credits/5" },
  { endpoint: "POST /v1/billing/credits/10", method: "POST", path: "/v1/billing/credits/10" },
  { endpoint: "POST /v1/billing/credits/25", method: "POST", path: "/v1/billing/credits/25" },
];

// The longest URL a valid search can have: every parameter at its longest, q of 200 accented letters.
const LONGEST_SEARCH =
  `/v1/search?q=${encodeURIComponent("ñ".repeat(200))}&cpv=72000000-5&buyer=${"b".repeat(200)}` +
  `&company=${"c".repeat(200)}&region=ES511&from=2024-01-01&to=2025-01-01&type=contract&page=100000&size=100`;

async function unpaid(app: App, call: { method: string; path: string; body?: unknown }) {
  return app.request(`${BASE}${call.path}`, {
    method: call.method,
    headers: { "content-type": "application/json", "x-client-key": CLIENT_KEY },
    ...(call.method === "POST" ? { body: JSON.stringify(call.body ?? {}) } : {}),
  });
}

function headerBytes(res: Response): number {
  let total = `HTTP/1.1 ${res.status} Payment Required\r\n`.length;
  res.headers.forEach((value, name) => {
    total += name.length + 2 + Buffer.byteLength(value) + 2;
  });
  return total;
}

describe("OpenAPI: every way to pay, the 402 and 429 headers", () => {
  it("declares PAYMENT-SIGNATURE (paymentSignature), X-PAYMENT and x-client-key on every priced operation", async () => {
    const { app } = buildTestApp({ db: t.db });
    const document = (await getJson(app, "/openapi.json")).body as Json;
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes.paymentSignature).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "PAYMENT-SIGNATURE",
    });
    expect(schemes.xPayment).toMatchObject({ type: "apiKey", in: "header", name: "X-PAYMENT" });
    expect(schemes.clientKey).toMatchObject({ type: "apiKey", in: "header", name: "x-client-key" });
    const schemas = (document.components as Json).schemas as Record<string, Json>;

    const paths = document.paths as Record<string, Record<string, Json>>;
    let priced = 0;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const responses = operation.responses as Record<string, Json>;
        if (!responses["402"]) {
          expect(operation.security, `${method} ${path}`).toBeUndefined();
          continue;
        }
        priced += 1;
        const security = operation.security as Record<string, string[]>[];
        const named = new Set(security.flatMap((requirement) => Object.keys(requirement)));
        expect([...named].sort(), `${method} ${path}`).toEqual(["clientKey", "paymentSignature", "xPayment"]);
        // Alternatives: one requirement object per way to pay (a bundle needs x-client-key beside the payment).
        expect(security.length, `${method} ${path}`).toBeGreaterThanOrEqual(2);

        const headers = responses["402"].headers as Record<string, Json>;
        expect(headers["PAYMENT-REQUIRED"]).toMatchObject({
          required: true,
          description: expect.stringContaining("Base64"),
          schema: { type: "string", contentEncoding: "base64" },
        });
        const content = responses["402"].content as Record<string, { schema: { $ref: string } }>;
        expect(content["application/json"]?.schema.$ref).toBe("#/components/schemas/PaymentRequired");

        const tooMany = responses["429"]?.headers as Record<string, Json>;
        expect(tooMany["Retry-After"]).toMatchObject({ required: true, schema: { type: "integer" } });
        expect(Object.keys(tooMany)).toEqual(
          expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining"]),
        );
      }
    }
    expect(priced).toBe(9); // 8 priced routes and the bundle route

    // The body schema: the error envelope plus the spec's x402 fields.
    const body = schemas.PaymentRequired as { allOf: Json[] };
    expect(body.allOf[0]).toEqual({ $ref: "#/components/schemas/Error" });
    expect(body.allOf[1]).toMatchObject({
      required: expect.arrayContaining(["x402Version", "resource", "accepts", "hint", "extensions"]),
    });
    expect(schemas.PaymentRequirement).toMatchObject({
      required: expect.arrayContaining([
        "scheme",
        "network",
        "asset",
        "amount",
        "payTo",
        "maxTimeoutSeconds",
        "extra",
        "resource",
      ]),
    });
  });
});

describe("the 402: one shape in both modes", () => {
  it.each(["dev", "x402"])(
    "%s mode: every priced route's body matches the documented schema",
    async (mode) => {
      const { app } = buildTestApp({ db: t.db, env: { PAYMENTS_MODE: mode } });
      for (const call of PRICED_CALLS) {
        const res = await unpaid(app, call);
        expect(res.status, call.endpoint).toBe(402);
        const body = (await res.json()) as Json;
        const parsed = PaymentRequiredSchema.strict().safeParse(body);
        expect(parsed.error, call.endpoint).toBeUndefined();
        const header = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
        expect(header.x402Version).toBe(2);
        expect(header.resource).toEqual(body.resource);
        // The header's accepts are the body's, without the per-entry `resource` the spec adds to the body.
        expect(header.accepts).toEqual(
          (body.accepts as Json[]).map(({ resource: _resource, ...entry }) => entry),
        );
        expect(
          validateDiscoveryExtension((body.extensions as { bazaar: DiscoveryExtension }).bazaar),
        ).toEqual({
          valid: true,
        });
      }
    },
  );

  it("dev mode: accepts describes the faucet, and a client following it gets served", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request(`${BASE}/v1/tenders/${tenderId}`);
    expect(res.status).toBe(402);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const header = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    const accept = {
      scheme: "dev-faucet",
      network: "dev",
      asset: "USD",
      amount: "20000",
      payTo: `${BASE}/v1/dev-faucet`,
      maxTimeoutSeconds: 900,
      extra: {
        faucet: "POST /v1/dev-faucet",
        faucet_url: `${BASE}/v1/dev-faucet`,
        faucet_body: { endpoint: "GET /v1/tenders/:id" },
        endpoint: "GET /v1/tenders/:id",
        header: "X-PAYMENT",
        price_usd: "0.02",
      },
    };
    expect(header).toMatchObject({
      x402Version: 2,
      error: "Payment required",
      resource: { url: `${BASE}/v1/tenders/${tenderId}`, mimeType: "application/json" },
      accepts: [accept],
    });
    const body = (await res.json()) as ErrorBody & Json;
    expect(body.error.code).toBe("payment_required");
    expect(body).toMatchObject({
      x402Version: 2,
      accepts: [{ ...accept, resource: `${BASE}/v1/tenders/${tenderId}` }],
    });
    expect(body.hint).toBe(body.error.hint);

    // A client reading only the header: ask the faucet as extra says, retry with the token in extra.header.
    const [entry] = header.accepts;
    const extra = entry?.extra as { faucet_url: string; faucet_body: Json; header: string };
    const faucet = await postJson(app, extra.faucet_url, extra.faucet_body);
    const paid = await getJson(app, `/v1/tenders/${tenderId}`, { [extra.header]: String(faucet.body.token) });
    expect(paid.res.status).toBe(200);

    // A refused token gets the same shape, with the refusal as `error`.
    const again = await app.request(`${BASE}/v1/tenders/${tenderId}`, {
      headers: { "x-payment": String(faucet.body.token) },
    });
    expect(again.status).toBe(402);
    const refused = decodePaymentRequiredHeader(again.headers.get("payment-required") ?? "");
    expect(refused.error).toContain("already been used");
    expect(refused.accepts[0]?.scheme).toBe("dev-faucet");
  });

  it("x402 mode: PAYMENT-REQUIRED stays under 4 KB on every priced route, and the whole header block too", async () => {
    const { app } = buildTestApp({ db: t.db, env: { PAYMENTS_MODE: "x402", RATE_LIMIT_PER_MINUTE: "300" } });
    const calls = [...PRICED_CALLS, { endpoint: "GET /v1/search", method: "GET", path: LONGEST_SEARCH }];
    const endpoints = new Set(calls.map((c) => c.endpoint));
    expect([...endpoints].sort()).toEqual(
      PRICE_TABLE.filter((e) => !e.free)
        .map((e) => e.endpoint)
        .sort(),
    );
    for (const call of calls) {
      const res = await unpaid(app, call);
      expect(res.status, call.path).toBe(402);
      const value = res.headers.get("payment-required") ?? "";
      expect(value.length, call.path).toBeLessThanOrEqual(3072);
      expect(headerBytes(res), call.path).toBeLessThan(4096);
      // Still the full requirement: what a client signs.
      const header = decodePaymentRequiredHeader(value);
      const body = (await res.json()) as { accepts: Json[]; extensions: Json };
      expect(header.accepts).toHaveLength(1);
      expect(header.accepts[0]).toMatchObject({
        scheme: "exact",
        payTo: expect.any(String),
        extra: { version: "2" },
      });
      expect(header.accepts).toEqual(body.accepts.map(({ resource: _r, ...entry }) => entry));
      // The compact declaration when it fits (everywhere but the longest search URL); the body has it in full.
      if (call.path !== LONGEST_SEARCH) {
        const compact = (header.extensions as { bazaar: DiscoveryExtension }).bazaar;
        expect(validateDiscoveryExtension(compact), call.path).toEqual({ valid: true });
        expect(compact.info.output, call.path).toBeUndefined();
      }
      expect((body.extensions as { bazaar: { info: Json } }).bazaar.info.output).toBeDefined();
    }
  });
});

describe("CORS, 405 and RateLimit", () => {
  it("answers a preflight 204 with the methods and the headers that pay", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request("/v1/search", {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "payment-signature, x-client-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",");
    expect(allowed).toEqual(
      expect.arrayContaining(["payment-signature", "x-payment", "x-client-key", "content-type"]),
    );
  });

  it("exposes the payment, retry, rate-limit and request-id headers to scripts", async () => {
    const { app } = buildTestApp({ db: t.db, env: { RATE_LIMIT_PER_MINUTE: "60" } });
    const res = await app.request(`/v1/tenders/${tenderId}`, {
      headers: { origin: "https://agent.example" },
    });
    expect(res.status).toBe(402);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");
    expect(exposed).toEqual(
      expect.arrayContaining([
        "payment-required",
        "payment-response",
        "x-payment-response",
        "retry-after",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "ratelimit-policy",
        "x-request-id",
      ]),
    );
  });

  it.each([
    ["DELETE", `/v1/tenders/1`, "GET, HEAD, OPTIONS"],
    ["POST", "/v1/search", "GET, HEAD, OPTIONS"],
    ["GET", "/v1/research", "POST, OPTIONS"],
    ["PUT", "/v1/billing/credits/5", "POST, OPTIONS"],
    ["POST", "/v1/pricing", "GET, HEAD, OPTIONS"],
    ["GET", "/v1/dev-faucet", "POST, OPTIONS"],
    ["POST", "/", "GET, HEAD, OPTIONS"],
  ])("answers %s %s with 405, Allow and a hint", async (method, path, allow) => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    const { error } = (await res.json()) as ErrorBody;
    expect(error.code).toBe("method_not_allowed");
    expect(error.message).toContain(method);
    expect(error.hint).toContain(`${allow.split(",")[0]} ${path}`);
  });

  it("keeps 404 for unknown paths", async () => {
    const { app } = buildTestApp({ db: t.db });
    for (const [method, path] of [
      ["GET", "/v1/nothing"],
      ["POST", "/v1/tenders/1/extra"],
      ["GET", "/v1/tenders/"],
    ] as const) {
      const res = await app.request(path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(((await res.json()) as ErrorBody).error.code).toBe("not_found");
    }
  });

  it("sends RateLimit headers on every answer when rate limiting is on, from the token bucket", async () => {
    const { app } = buildTestApp({ db: t.db, env: { RATE_LIMIT_PER_MINUTE: "60", RATE_LIMIT_BURST: "3" } });
    const seen: [number, string | null, string | null, string | null, string | null][] = [];
    for (const path of ["/v1/pricing", `/v1/tenders/${tenderId}`, "/v1/nothing", "/v1/pricing"]) {
      const res = await app.request(path, { headers: { "x-client-key": "rate-limit-headers-key-1" } });
      seen.push([
        res.status,
        res.headers.get("ratelimit-limit"),
        res.headers.get("ratelimit-remaining"),
        res.headers.get("ratelimit-reset"),
        res.headers.get("ratelimit-policy"),
      ]);
    }
    expect(seen).toEqual([
      [200, "3", "2", "1", "60;w=60"],
      [402, "3", "1", "2", "60;w=60"],
      [404, "3", "0", "3", "60;w=60"],
      [429, "3", "0", "3", "60;w=60"],
    ]);
    // MCP answers (built by the transport) carry them too.
    const mcp = await app.request("/mcp", { method: "GET" });
    expect(mcp.headers.get("ratelimit-limit")).toBe("3");
  });

  it("sends no RateLimit headers when rate limiting is off", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request("/v1/pricing");
    expect(res.headers.get("ratelimit-limit")).toBeNull();
  });
});
