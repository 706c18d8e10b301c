import { describe, expect, it } from "vitest";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { accountState, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

/**
 * A priced call on a database holding no tender at all is refused before the payment gate: 404 not_found saying
 * no data is loaded yet, nothing charged, no token or proof consumed (docs/decisions.md). The tests run in
 * order: empty first, then the same credentials on a loaded database.
 */

const t = useTestDb();
const KEY = "empty-db-client-key-0001";
type ErrorBody = { error: { code: string; message: string; hint: string } };

/** One JSON-RPC tools/call against POST /mcp, in process. */
async function mcpCall(
  app: ReturnType<typeof buildTestApp>["app"],
  name: string,
  args: Record<string, unknown>,
) {
  const res = await app.request("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    result: { isError?: boolean; structuredContent: Record<string, unknown> };
  };
  return body.result;
}

describe("a priced call on an empty database", () => {
  let token: string;
  let mcpToken: string;

  it("REST: 404 not_found saying no data is loaded, before any payment (unpaid, dev token, client key)", async () => {
    const { app } = buildTestApp({ db: t.db });
    token = await devToken(app, "GET /v1/search");
    await seedAccount(t.db, KEY, { cents: 100 });

    const attempts: Record<string, string>[] = [{}, { "x-payment": token }, { "x-client-key": KEY }];
    for (const headers of attempts) {
      const { res, body } = await getJson(app, "/v1/search?q=redes", headers);
      expect(res.status).toBe(404);
      expect(res.headers.get("payment-required")).toBeNull();
      const { error } = body as unknown as ErrorBody;
      expect(error.code).toBe("not_found");
      expect(error.message).toContain("No data is loaded yet");
      expect(error.message).toContain("Nothing was charged");
      expect(error.hint).toContain("GET /v1/demo");
    }
    // Validation still comes first: a bad request is a 400 whatever the data.
    expect((await getJson(app, "/v1/search?size=0")).res.status).toBe(400);
    // The balance is untouched (no debit, no refund rows) and the token unused.
    expect(await accountState(t.db, KEY)).toMatchObject({ balance_cents: 100, ledger_cents: 100 });
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM credit_ledger l JOIN credit_accounts a ON a.id = l.account_id WHERE a.balance_cents = 100",
    );
    expect(rows[0]?.n).toBe(1);
    const used = await t.db.query<{ consumed_at: Date | null }>("SELECT consumed_at FROM dev_tokens");
    expect(used.rows.every((r) => r.consumed_at === null)).toBe(true);
  });

  it("MCP: the same refusal as a tool error, through the same gate", async () => {
    const { app } = buildTestApp({ db: t.db });
    mcpToken = await devToken(app, "GET /v1/tenders/:id");
    for (const args of [{ id: 1 }, { id: 1, payment_token: mcpToken }, { id: 1, client_key: KEY }]) {
      const result = await mcpCall(app, "get_tender", args);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        error: { code: "not_found", message: expect.stringContaining("No data is loaded yet") },
      });
    }
    expect(await accountState(t.db, KEY)).toMatchObject({ balance_cents: 100 });
  });

  it("sells credit bundles all the same (a purchase is not data)", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request("/v1/billing/credits/5", {
      method: "POST",
      headers: { "x-client-key": KEY },
    });
    expect(res.status).toBe(402);
  });

  it("once data is loaded, the same token, client key and MCP token pay as usual", async () => {
    const { app } = buildTestApp({ db: t.db });
    const id = await insertTender(t.db, { sourceRef: "empty-then-loaded", title: "Redes de datos" });
    const rest = await getJson(app, "/v1/search?q=redes", { "x-payment": token });
    expect(rest.res.status).toBe(200);
    expect(rest.body.meta).toMatchObject({ paid: true, price_usd: "0.02" });

    const credits = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": KEY });
    expect(credits.res.status).toBe(200);
    expect(await accountState(t.db, KEY)).toMatchObject({ balance_cents: 98, ledger_cents: 98 });

    const mcp = await mcpCall(app, "get_tender", { id, payment_token: mcpToken });
    expect(mcp.isError).toBeUndefined();
    expect(mcp.structuredContent).toMatchObject({ data: { id }, meta: { paid: true } });
  });
});
