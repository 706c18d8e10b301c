import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

/** Issue 16: small wording fixes (parameters, hints, pricing, llms.txt). */

const t = useTestDb();
let tenderId = 0;

beforeAll(async () => {
  tenderId = await insertTender(t.db, { sourceRef: "wording-1", title: "Redes" });
});

type Json = Record<string, unknown>;
type ErrorBody = { error: { code: string; message: string; hint: string } };

/** Text shared by a message and its hint longer than this is a repeat (a name or a price may recur). */
const REPEAT = 28;

/** Length of the longest substring two texts share. */
function longestCommon(a: string, b: string): number {
  let best = 0;
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i += 1) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j += 1) {
      if (a[i - 1] === b[j - 1]) {
        row[j] = (previous[j - 1] ?? 0) + 1;
        best = Math.max(best, row[j] ?? 0);
      }
    }
    previous = row;
  }
  return best;
}

describe("wording", () => {
  it.each([
    ["/v1/search?buyer=%20%20%20", "buyer"],
    ["/v1/search?company=%20%20", "company"],
    ["/v1/renewals?buyer=%20%20%20%20", "buyer"],
  ])("refuses a whitespace-only name fragment %s with a 400 naming it", async (path, name) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, path);
    expect(res.status).toBe(400);
    const { error } = body as unknown as ErrorBody;
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain(`"${name}"`);
    expect(error.message).toContain("not only spaces");
  });

  it.each([
    ["/v1/search?size=1&size=2", "size"],
    ["/v1/search?q=a&q=b", "q"],
    ["/v1/renewals?window_months=3&window_months=6", "window_months"],
    ["/v1/companies/1/awards?page=1&page=2", "page"],
  ])("says a parameter was given more than once: %s", async (path, name) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, path);
    expect(res.status).toBe(400);
    const { error } = body as unknown as ErrorBody;
    expect(error.message).toContain(`"${name}" was given more than once`);
    expect(error.hint).toContain(`"${name}" once`);
  });

  it.each(["dev", "x402"])("%s mode: the hint never repeats the message", async (mode) => {
    const { app } = buildTestApp({
      db: t.db,
      env: { PAYMENTS_MODE: mode, OPERATOR_KEY: "operator-key-0123456789" },
    });
    const requests: [string, string, string?, Record<string, string>?][] = [
      ["GET", "/v1/search?region=1"],
      ["GET", "/v1/search?from=2025-02-01&to=2025-01-01"],
      ["GET", "/v1/renewals?window_months=40"],
      ["GET", `/v1/tenders/${tenderId}`, undefined, { "x-payment": "garbage" }],
      ["GET", `/v1/tenders/${tenderId}`, undefined, { "payment-signature": "garbage" }],
      ["GET", `/v1/tenders/${tenderId}`, undefined, { "x-client-key": "short" }],
      ["GET", `/v1/tenders/${tenderId}`, undefined, { "x-client-key": "no-account-key-0123456789" }],
      ["GET", "/v1/billing", undefined, { "x-client-key": "x" }],
      ["POST", "/v1/billing/credits/5", "{}", { "x-client-key": "lct_abcdefghijklmnopqrstuvwxyz" }],
      ["POST", "/v1/research", '{"query":"x","limit":0}'],
      ["GET", "/v1/search?size=0"],
      ["GET", "/v1/search?size=abc"],
      ["GET", "/v1/search?cpv=7"],
      ["GET", "/v1/search?type=x"],
      ["GET", "/v1/search?from=2025-13-01"],
      ["GET", `/v1/search?q=${"x".repeat(201)}`],
      ["GET", "/v1/tenders/0"],
      ["GET", "/v1/tenders/abc"],
      ["GET", "/v1/tenders/999999"],
      ["GET", "/v1/renewals?min_confidence=x"],
      ["POST", "/v1/research", "[]"],
      ["POST", "/v1/research", "null"],
      ["POST", "/v1/research", "{"],
      ["POST", "/v1/research", "{}"],
      ["POST", "/v1/billing/credits/7", "{}"],
      ["POST", "/v1/dev-faucet", '{"endpoint": "GET /nope"}'],
      ["GET", "/v1/billing"],
      ["GET", "/v1/stats"],
      ["GET", "/v1/nothing"],
      ["DELETE", "/v1/search"],
      ["GET", `/v1/tenders/${tenderId}`],
    ];
    for (const [method, path, body, headers] of requests) {
      const res = await app.request(path, {
        method,
        headers: { "content-type": "application/json", ...headers },
        ...(body !== undefined ? { body } : {}),
      });
      const { error } = (await res.json()) as ErrorBody;
      const where = `${method} ${path} (${res.status}): ${error.message} / ${error.hint}`;
      expect(error.hint, where).toBeTruthy();
      expect(longestCommon(error.message, error.hint), where).toBeLessThan(REPEAT);
    }
    // MCP: arguments that are not an object, an invalid argument.
    for (const args of [[], { id: "x" }]) {
      const res = await app.request("/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_tender", arguments: args },
        }),
      });
      const json = (await res.json()) as { result?: { structuredContent?: ErrorBody }; error?: unknown };
      const error = json.result?.structuredContent?.error;
      if (error) {
        expect(longestCommon(error.message, error.hint)).toBeLessThan(REPEAT);
      }
    }
  });

  it("pricing: subscription.checkout_endpoint is null when no subscription is offered", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { body } = await getJson(app, "/v1/pricing");
    expect((body.data as { subscription: Json }).subscription).toMatchObject({
      available: false,
      checkout_endpoint: null,
    });
  });

  it("llms.txt links no URL with a {param} placeholder", async () => {
    const { app } = buildTestApp({ db: t.db, env: { PUBLIC_BASE_URL: "https://api.example.org" } });
    const text = await (await app.request("/llms.txt")).text();
    const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1] ?? "");
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((url) => /[{}]/.test(url))).toEqual([]);
    expect(text).toContain("- GET /v1/tenders/:id: 0.02 USD.");
  });
});
