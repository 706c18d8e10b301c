import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { buildTestApp, devToken, getJson, postJson, testClock } from "../helpers/app.ts";
import { accountState, keyHash, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";
import { TEST_ENGINE } from "../helpers/engines.ts";
import { insertTender } from "../helpers/factories.ts";

const t = useTestDb();
const TENDER = "GET /v1/tenders/:id";

type ErrorBody = { error: { code: string; message: string; hint: string } };
interface BalanceData {
  kind: string;
  balance_cents: number;
  balance_usd: string;
  trial_calls: number;
  subscription: { active: boolean; expires_at: string | null };
  created_at: string;
  credited_cents?: number;
  credited_usd?: string;
}

let keys = 0;
/** A fresh client key per test, so tests sharing the file's database never share an account. */
function newKey(): string {
  keys += 1;
  return `credits-test-key-${String(keys).padStart(4, "0")}-abcdef`;
}

async function buy(app: ReturnType<typeof buildTestApp>["app"], key: string, amount: "5" | "10" | "25") {
  const token = await devToken(app, `POST /v1/billing/credits/${amount}`);
  return postJson(app, `/v1/billing/credits/${amount}`, {}, { "x-client-key": key, "x-payment": token });
}

describe("POST /v1/billing/credits/{amount}", () => {
  it("buys a bundle paid by a dev token: creates the account and returns the balance", async () => {
    const now = testClock(new Date("2026-06-01T10:00:00.000Z"));
    const { app } = buildTestApp({ db: t.db, now });
    const key = newKey();
    const { res, body } = await buy(app, key, "5");
    expect(res.status).toBe(200);
    expect(body.data).toEqual({
      kind: "credits",
      balance_cents: 500,
      balance_usd: "5.00",
      trial_calls: 0,
      subscription: { active: false, expires_at: null },
      created_at: "2026-06-01T10:00:00.000Z",
      credited_cents: 500,
      credited_usd: "5.00",
    });
    expect(body.meta).toMatchObject({ price_usd: "5.00", paid: true });
    const again = await buy(app, key, "10");
    expect((again.body.data as BalanceData).balance_cents).toBe(1500);

    const state = await accountState(t.db, key);
    expect(state).toMatchObject({ kind: "credits", balance_cents: 1500, ledger_cents: 1500 });
    // Only the key's hash is stored, never the key.
    const { rows } = await t.db.query<{ key_hash: string }>("SELECT key_hash FROM credit_accounts");
    expect(rows.map((r) => r.key_hash)).toContain(keyHash(key));
    expect(JSON.stringify(rows)).not.toContain(key);
    const ledger = await t.db.query<{ reason: string; delta_cents: number; endpoint: string }>(
      "SELECT reason, delta_cents, endpoint FROM credit_ledger WHERE account_id = $1 ORDER BY id",
      [state?.id],
    );
    expect(ledger.rows).toEqual([
      { reason: "purchase", delta_cents: 500, endpoint: "POST /v1/billing/credits/5" },
      { reason: "purchase", delta_cents: 1000, endpoint: "POST /v1/billing/credits/10" },
    ]);
    // The purchase is a paid call like any other, for the operator's statistics.
    const calls = await t.db.query<{ method: string; price_cents: number }>(
      "SELECT method, price_cents FROM api_calls WHERE endpoint = 'POST /v1/billing/credits/5'",
    );
    expect(calls.rows).toContainEqual({ method: "dev", price_cents: 500 });
  });

  it("refuses a bundle amount other than 5, 10 or 25 with 400, before any payment", async () => {
    const { app } = buildTestApp({ db: t.db });
    const token = await devToken(app, "POST /v1/billing/credits/5");
    for (const amount of ["7", "0", "five", "5.00"]) {
      const { res, body } = await postJson(
        app,
        `/v1/billing/credits/${amount}`,
        {},
        {
          "x-client-key": newKey(),
          "x-payment": token,
        },
      );
      expect(res.status, amount).toBe(400);
      expect((body as ErrorBody).error.code).toBe("invalid_query");
      expect((body as ErrorBody).error.message).toContain("5 | 10 | 25");
    }
    // The token was not spent by the refused requests.
    expect(
      (await postJson(app, "/v1/billing/credits/5", {}, { "x-client-key": newKey(), "x-payment": token })).res
        .status,
    ).toBe(200);
  });

  it("requires a valid x-client-key (400), and lct_ keys are refused", async () => {
    const { app } = buildTestApp({ db: t.db });
    const token = await devToken(app, "POST /v1/billing/credits/5");
    const missing = await postJson(app, "/v1/billing/credits/5", {}, { "x-payment": token });
    expect(missing.res.status).toBe(400);
    expect((missing.body as ErrorBody).error.message).toBe('header "x-client-key" is required.');
    const short = await postJson(
      app,
      "/v1/billing/credits/5",
      {},
      { "x-payment": token, "x-client-key": "abc" },
    );
    expect(short.res.status).toBe(400);
    expect((short.body as ErrorBody).error.message).toContain("20 to 128 characters");
    expect(JSON.stringify(short.body)).not.toContain('"abc"');
    const inert = await postJson(
      app,
      "/v1/billing/credits/5",
      {},
      {
        "x-payment": token,
        "x-client-key": "lct_0123456789abcdefghijkl",
      },
    );
    expect(inert.res.status).toBe(400);
    expect((inert.body as ErrorBody).error.message).toContain("lct_");
    expect(
      (await postJson(app, "/v1/billing/credits/5", {}, { "x-payment": token, "x-client-key": newKey() })).res
        .status,
    ).toBe(200);
  });

  it("is never paid from a balance, not even the account's own", async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 10_000 });
    const { res, body } = await postJson(app, "/v1/billing/credits/5", {}, { "x-client-key": key });
    expect(res.status).toBe(402);
    expect((body as ErrorBody).error.hint).toContain("POST /v1/dev-faucet");
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 10_000, ledger_cents: 10_000 });
  });

  it("credits once when one payment token is sent 20 times in parallel", async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    const token = await devToken(app, "POST /v1/billing/credits/5");
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        Promise.resolve(
          app.request("/v1/billing/credits/5", {
            method: "POST",
            headers: { "x-client-key": key, "x-payment": token },
          }),
        ).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 500, ledger_cents: 500 });
  });
});

describe("GET /v1/billing", () => {
  it("returns the balance for the key, free", async () => {
    const now = testClock(new Date("2026-06-02T08:00:00.000Z"));
    const { app } = buildTestApp({ db: t.db, now });
    const key = newKey();
    await buy(app, key, "25");
    const { res, body } = await getJson(app, "/v1/billing", { "x-client-key": key });
    expect(res.status).toBe(200);
    expect(body.data).toEqual({
      kind: "credits",
      balance_cents: 2500,
      balance_usd: "25.00",
      trial_calls: 0,
      subscription: { active: false, expires_at: null },
      created_at: "2026-06-02T08:00:00.000Z",
    });
    expect(body.meta).toMatchObject({ price_usd: "0.00", paid: false, provenance: [] });
  });

  it("answers not_found for a key without account, 400 without a key", async () => {
    const { app } = buildTestApp({ db: t.db });
    const unknown = await getJson(app, "/v1/billing", { "x-client-key": newKey() });
    expect(unknown.res.status).toBe(404);
    expect((unknown.body as ErrorBody).error.code).toBe("not_found");
    expect((unknown.body as ErrorBody).error.hint).toContain("POST /v1/billing/credits/5");
    const missing = await getJson(app, "/v1/billing");
    expect(missing.res.status).toBe(400);
    expect((missing.body as ErrorBody).error.code).toBe("invalid_query");
  });
});

describe("paying calls with x-client-key", () => {
  it("debits the exact price per call and records the method", async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    await buy(app, key, "5");
    const id = await insertTender(t.db, { sourceRef: "credits-debit" });
    const first = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key });
    expect(first.res.status).toBe(200);
    expect(first.body.meta).toMatchObject({ paid: true, price_usd: "0.02" });
    await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key });
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 496, ledger_cents: 496 });
    const requestId = first.res.headers.get("x-request-id");
    const { rows } = await t.db.query<{ method: string; price_cents: number }>(
      "SELECT method, price_cents FROM api_calls WHERE request_id = $1",
      [requestId],
    );
    expect(rows).toEqual([{ method: "credits", price_cents: 2 }]);
  });

  it("answers 402 with a refill hint when the balance is short, and leaves it unchanged", async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 3 });
    const id = await insertTender(t.db, { sourceRef: "credits-short" });
    expect((await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key })).res.status).toBe(200);
    const { res, body } = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key });
    expect(res.status).toBe(402);
    const error = (body as ErrorBody).error;
    expect(error.code).toBe("payment_required");
    expect(error.message).toBe(
      "GET /v1/tenders/:id costs 0.02 USD; the prepaid balance of this x-client-key is 0.01 USD.",
    );
    expect(error.hint).toContain("POST /v1/billing/credits/5");
    expect(error.hint).toContain("x-client-key");
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 1, ledger_cents: 1 });
  });

  it("answers 402 for a key without an account", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, "/v1/tenders/1", { "x-client-key": newKey() });
    expect(res.status).toBe(402);
    expect((body as ErrorBody).error.message).toMatch(/no prepaid account exists for this x-client-key/);
  });

  it("in x402 mode, a short balance's 402 still carries the x402 requirement", async () => {
    const { app } = buildTestApp({ db: t.db, env: { PAYMENTS_MODE: "x402" } });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 1 });
    const { res, body } = await getJson(app, "/v1/tenders/1", { "x-client-key": key });
    expect(res.status).toBe(402);
    expect(res.headers.get("payment-required")).toBeTruthy();
    expect((body as ErrorBody).error.message).toContain("prepaid balance of this x-client-key is 0.01 USD");
    expect((body as ErrorBody).error.hint).toContain("POST /v1/billing/credits/5");
    expect(Array.isArray((body as { accepts?: unknown }).accepts)).toBe(true);
  });

  it("does not charge a 404: the debit is refunded with a ledger row", async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 100 });
    const { res } = await getJson(app, "/v1/tenders/987654321", { "x-client-key": key });
    expect(res.status).toBe(404);
    const state = await accountState(t.db, key);
    expect(state).toMatchObject({ balance_cents: 100, ledger_cents: 100 });
    const { rows } = await t.db.query<{ reason: string; delta_cents: number }>(
      "SELECT reason, delta_cents FROM credit_ledger WHERE account_id = $1 AND reference IS DISTINCT FROM 'test-seed' ORDER BY id",
      [state?.id],
    );
    expect(rows).toEqual([
      { reason: "debit", delta_cents: -2 },
      { reason: "refund", delta_cents: 2 },
    ]);
  });

  it("does not charge a failure on our side (5xx)", async () => {
    const failing: Db = {
      ...t.db,
      query: async () => {
        throw new Error("database gone");
      },
    };
    const { app } = buildTestApp({ db: t.db, domainDb: failing });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 100 });
    const id = await insertTender(t.db, { sourceRef: "credits-500" });
    const { res } = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key });
    expect(res.status).toBe(500);
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 100, ledger_cents: 100 });
  });

  it("lets lct_ keys fall through to the other methods", async () => {
    const { app } = buildTestApp({ db: t.db });
    const id = await insertTender(t.db, { sourceRef: "credits-lct" });
    const inert = "lct_0123456789abcdefghijklmnop";
    const unpaid = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": inert });
    expect(unpaid.res.status).toBe(402);
    expect((unpaid.body as ErrorBody).error.hint).toContain("POST /v1/dev-faucet");
    const token = await devToken(app, TENDER);
    const paid = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": inert, "x-payment": token });
    expect(paid.res.status).toBe(200);
    const { rows } = await t.db.query<{ method: string }>(
      "SELECT method FROM api_calls WHERE request_id = $1",
      [paid.res.headers.get("x-request-id")],
    );
    expect(rows).toEqual([{ method: "dev" }]);
  });

  it("lets another payment pay when the balance is short", async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 1 });
    const id = await insertTender(t.db, { sourceRef: "credits-fallthrough" });
    const token = await devToken(app, TENDER);
    const { res } = await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key, "x-payment": token });
    expect(res.status).toBe(200);
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 1 });
  });

  it(`serves exactly as many parallel calls as the balance pays for (${TEST_ENGINE})`, async () => {
    const { app } = buildTestApp({ db: t.db });
    const key = newKey();
    await seedAccount(t.db, key, { cents: 20 }); // exactly 10 calls at 0.02
    const id = await insertTender(t.db, { sourceRef: "credits-race" });
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () =>
        Promise.resolve(app.request(`/v1/tenders/${id}`, { headers: { "x-client-key": key } })).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    const state = await accountState(t.db, key);
    expect(state).toMatchObject({ balance_cents: 0, ledger_cents: 0 });
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND reason = 'debit'",
      [state?.id],
    );
    expect(rows[0]?.n).toBe(10);
  });
});

describe("discovery", () => {
  it("lists the bundle route as paid in llms.txt, with each bundle's price", async () => {
    const { app } = buildTestApp({ db: t.db });
    const text = await (await app.request("/llms.txt")).text();
    const paid = text.slice(text.indexOf("## Paid endpoints"), text.indexOf("## Free endpoints"));
    expect(paid).toContain(
      // A path with a parameter is named as text, not linked (no {amount} placeholder in a URL).
      "- POST /v1/billing/credits/:amount: 5.00 / 10.00 / 25.00 USD.",
    );
    const free = text.slice(text.indexOf("## Free endpoints"));
    expect(free).toContain("[GET /v1/billing](http://localhost/v1/billing): free.");
  });
});
