import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { subscriptionSettingsFrom } from "../../src/payments/subscription/settings.ts";
import { buildTestApp, devToken, getJson, postJson, testClock } from "../helpers/app.ts";
import { accountState, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";
import {
  PADDLE_TEST_KEY,
  PADDLE_TEST_PRICE,
  PADDLE_TEST_SECRET,
  type PaddleServer,
  signPaddle,
  startPaddleServer,
  transactionCompleted,
} from "../helpers/paddle-server.ts";

const t = useTestDb();
let paddle: PaddleServer;
beforeAll(async () => {
  paddle = await startPaddleServer();
});
afterAll(async () => {
  await paddle?.close();
});

const DAY_MS = 86_400_000;
type ErrorBody = { error: { code: string; message: string; hint: string } };
interface CheckoutBody {
  checkout_url: string;
  checkout_id: string;
  client_key: string;
  key_created: boolean;
}

function morEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    MOR_API_URL: paddle.url,
    MOR_API_KEY: PADDLE_TEST_KEY,
    MOR_PRICE_ID: PADDLE_TEST_PRICE,
    MOR_WEBHOOK_SECRET: PADDLE_TEST_SECRET,
    ...extra,
  };
}

function subscriptionApp(now = testClock(), extra: Record<string, string> = {}) {
  return { now, ...buildTestApp({ db: t.db, now, env: morEnv(extra) }) };
}

type App = ReturnType<typeof buildTestApp>["app"];

async function deliver(app: App, body: string, signature: string | undefined) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== undefined) {
    headers["paddle-signature"] = signature;
  }
  const res = await app.request("/v1/mor/webhook", { method: "POST", headers, body });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

const seconds = (now: () => Date) => Math.floor(now().getTime() / 1000);

let emails = 0;
const newEmail = () => {
  emails += 1;
  return `buyer${emails}@example.com`;
};

async function checkout(app: App, email: string, headers: Record<string, string> = {}) {
  const { res, body } = await postJson(app, "/v1/mor/checkout", { email }, headers);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { res, body: body as unknown as CheckoutBody };
}

/** The custom data the service gave the provider for a checkout (what Paddle echoes on the payment). */
function customDataOf(checkoutId: string): Record<string, string> {
  return (paddle.transactions.get(checkoutId)?.custom_data ?? {}) as Record<string, string>;
}

async function pay(app: App, now: () => Date, checkoutId: string, extra: { eventId?: string } = {}) {
  const event = transactionCompleted({
    transactionId: checkoutId,
    customData: customDataOf(checkoutId),
    subscriptionId: `sub_for_${checkoutId}`,
    ...extra,
  });
  return deliver(app, event.body, signPaddle(event.body, seconds(now)));
}

describe("POST /v1/mor/checkout", () => {
  it("stores a lead, creates the account and returns the provider's checkout URL and the key", async () => {
    const { app } = subscriptionApp();
    const email = newEmail();
    const before = paddle.requests.length;
    const { res, body } = await checkout(app, email);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(body).toEqual({
      checkout_url: `${paddle.url}/pay?_ptxn=${body.checkout_id}`,
      checkout_id: expect.stringMatching(/^txn_/),
      client_key: expect.stringMatching(/^ck_[A-Za-z0-9_-]{32}$/),
      key_created: true,
      provider: "paddle",
      currency: "EUR",
      price_monthly_cents: 2900,
      price_monthly: "29.00",
      period_days: 30,
      grant_cents: 2500,
      grant_usd: "25.00",
      next: expect.stringContaining("X-PAYMENT"),
    });
    // Paddle was called as its API documents: customer by e-mail, then a transaction for the price.
    const calls = paddle.requests.slice(before);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /customers", "POST /transactions"]);
    expect(calls.every((r) => r.authorization === `Bearer ${PADDLE_TEST_KEY}`)).toBe(true);
    expect(calls[0]?.body).toEqual({ email });
    const state = await accountState(t.db, body.client_key);
    expect(calls[1]?.body).toEqual({
      items: [{ price_id: PADDLE_TEST_PRICE, quantity: 1 }],
      customer_id: expect.stringMatching(/^ctm_/),
      custom_data: { account_id: String(state?.id), lead_id: expect.stringMatching(/^\d+$/) },
      collection_mode: "automatic",
    });
    expect(JSON.stringify(calls)).not.toContain(body.client_key);
    expect(state).toMatchObject({ kind: "credits", balance_cents: 0, mor_until: null });
    const { rows } = await t.db.query<{ status: string; checkout_id: string; account_id: number }>(
      "SELECT status, checkout_id, account_id FROM leads WHERE email = $1",
      [email],
    );
    expect(rows).toEqual([{ status: "new", checkout_id: body.checkout_id, account_id: state?.id }]);
  });

  it("reuses the provider customer and the open lead for the same address", async () => {
    const { app } = subscriptionApp();
    const email = newEmail();
    const first = await checkout(app, email);
    const second = await checkout(app, email.toUpperCase());
    expect(second.body.client_key).not.toBe(first.body.client_key);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM leads WHERE lower(email) = $1",
      [email],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("attaches the subscription to the account x-client-key names", async () => {
    const { app } = subscriptionApp();
    const key = "my-own-existing-key-0001";
    await seedAccount(t.db, key, { cents: 300 });
    const { body } = await checkout(app, newEmail(), { "x-client-key": key });
    expect(body.client_key).toBe(key);
    expect(body.key_created).toBe(false);
    expect(customDataOf(body.checkout_id).account_id).toBe(String((await accountState(t.db, key))?.id));
  });

  it.each([
    ["no at sign", "buyer.example.com"],
    ["empty", ""],
    ["spaces", "a b@example.com"],
    ["too long", `${"a".repeat(250)}@example.com`],
  ])("refuses an invalid e-mail (%s) with 400 and stores nothing", async (_, email) => {
    const { app } = subscriptionApp();
    const before = paddle.requests.length;
    const { res, body } = await postJson(app, "/v1/mor/checkout", { email });
    expect(res.status).toBe(400);
    expect((body as ErrorBody).error.code).toBe("invalid_query");
    expect((body as ErrorBody).error.message).toContain('body field "email"');
    expect(paddle.requests.length).toBe(before);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM leads WHERE email = $1",
      [email],
    );
    expect(rows[0]?.n).toBe(0);
  });

  it("answers 500 with a retry hint when the provider fails, keeping the lead", async () => {
    const { app } = subscriptionApp();
    const email = newEmail();
    paddle.failNextTransaction(500);
    const { res, body } = await postJson(app, "/v1/mor/checkout", { email });
    expect(res.status).toBe(500);
    expect((body as ErrorBody).error).toMatchObject({
      code: "internal",
      message: "The payment provider could not open a checkout.",
    });
    expect(JSON.stringify(body)).not.toContain("ck_");
    const { rows } = await t.db.query<{ status: string }>("SELECT status FROM leads WHERE email = $1", [
      email,
    ]);
    expect(rows).toEqual([{ status: "new" }]);
  });
});

describe("POST /v1/mor/webhook", () => {
  it("applies a valid completed payment: kind mor for 30 days, credits granted, lead paid", async () => {
    const { app, now } = subscriptionApp();
    const email = newEmail();
    const { body: session } = await checkout(app, email);
    const { res, body } = await pay(app, now, session.checkout_id);
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, duplicate: false, outcome: "granted" });
    const state = await accountState(t.db, session.client_key);
    expect(state).toMatchObject({ kind: "mor", balance_cents: 2500, ledger_cents: 2500 });
    expect(state?.mor_until?.toISOString()).toBe(new Date(now().getTime() + 30 * DAY_MS).toISOString());
    const ledger = await t.db.query<{ reason: string; reference: string }>(
      "SELECT reason, reference FROM credit_ledger WHERE account_id = $1",
      [state?.id],
    );
    expect(ledger.rows).toEqual([
      { reason: "subscription_grant", reference: `paddle:${session.checkout_id}` },
    ]);
    const lead = await t.db.query<{ status: string }>("SELECT status FROM leads WHERE email = $1", [email]);
    expect(lead.rows).toEqual([{ status: "paid" }]);
    const event = await t.db.query<{ outcome: string; amount_cents: number; currency: string }>(
      "SELECT outcome, amount_cents, currency FROM webhook_events WHERE account_id = $1",
      [state?.id],
    );
    expect(event.rows).toEqual([{ outcome: "granted", amount_cents: 2900, currency: "EUR" }]);
  });

  it("ignores a replayed event id: 200, nothing changes", async () => {
    const { app, now } = subscriptionApp();
    const { body: session } = await checkout(app, newEmail());
    const event = transactionCompleted({
      transactionId: session.checkout_id,
      customData: customDataOf(session.checkout_id),
    });
    const first = await deliver(app, event.body, signPaddle(event.body, seconds(now)));
    expect(first.body).toMatchObject({ duplicate: false, outcome: "granted" });
    now.advance(60_000);
    const replay = await deliver(app, event.body, signPaddle(event.body, seconds(now)));
    expect(replay.res.status).toBe(200);
    expect(replay.body).toEqual({ received: true, duplicate: true, outcome: null });
    expect(await accountState(t.db, session.client_key)).toMatchObject({ balance_cents: 2500 });
  });

  it("applies one of several parallel deliveries of the same event", async () => {
    const { app, now } = subscriptionApp();
    const { body: session } = await checkout(app, newEmail());
    const event = transactionCompleted({
      transactionId: session.checkout_id,
      customData: customDataOf(session.checkout_id),
    });
    const signature = signPaddle(event.body, seconds(now));
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(app, event.body, signature)));
    expect(results.map((r) => r.res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect(await accountState(t.db, session.client_key)).toMatchObject({
      balance_cents: 2500,
      ledger_cents: 2500,
    });
  });

  async function refusedAndUnchanged(app: App, body: string, signature: string | undefined, reason: RegExp) {
    const eventsBefore = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events");
    const { res, body: answer } = await deliver(app, body, signature);
    expect(res.status).toBe(400);
    expect((answer as ErrorBody).error.code).toBe("invalid_query");
    expect((answer as ErrorBody).error.message).toMatch(reason);
    const eventsAfter = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events");
    expect(eventsAfter.rows[0]?.n).toBe(eventsBefore.rows[0]?.n);
  }

  it("refuses a tampered body, a stale or missing or malformed signature, or another secret; nothing changes", async () => {
    const { app, now } = subscriptionApp();
    const { body: session } = await checkout(app, newEmail());
    const event = transactionCompleted({
      transactionId: session.checkout_id,
      customData: customDataOf(session.checkout_id),
    });
    const ts = seconds(now);
    const tampered = event.body.replace('"grand_total":"2900"', '"grand_total":"1"');
    expect(tampered).not.toBe(event.body);
    await refusedAndUnchanged(app, tampered, signPaddle(event.body, ts), /does not match/);
    await refusedAndUnchanged(app, event.body, signPaddle(event.body, ts - 6), /tolerance 5 s/);
    await refusedAndUnchanged(app, event.body, signPaddle(event.body, ts + 60), /tolerance 5 s/);
    await refusedAndUnchanged(app, event.body, undefined, /missing/);
    await refusedAndUnchanged(app, event.body, "h1=abc", /not of the form/);
    await refusedAndUnchanged(
      app,
      event.body,
      signPaddle(event.body, ts, "pdl_ntfset_other_secret"),
      /does not match/,
    );
    expect(await accountState(t.db, session.client_key)).toMatchObject({ kind: "credits", balance_cents: 0 });
    // The same event, correctly signed and on time, is then applied.
    expect((await deliver(app, event.body, signPaddle(event.body, ts - 5))).body).toMatchObject({
      outcome: "granted",
    });
  });

  it("accepts any of several h1 values (secret rotation)", async () => {
    const { app, now } = subscriptionApp();
    const { body: session } = await checkout(app, newEmail());
    const event = transactionCompleted({
      transactionId: session.checkout_id,
      customData: customDataOf(session.checkout_id),
    });
    const ts = seconds(now);
    const old = signPaddle(event.body, ts, "pdl_ntfset_old_secret_value").split(";")[1];
    const { res } = await deliver(
      app,
      event.body,
      `ts=${ts};${old};${signPaddle(event.body, ts).split(";")[1]}`,
    );
    expect(res.status).toBe(200);
  });

  it("records events it does not act on, and payments that match no account", async () => {
    const { app, now } = subscriptionApp();
    const other = JSON.stringify({
      event_id: "evt_01testother0000000000000001",
      event_type: "customer.created",
      occurred_at: "2026-06-01T10:00:00Z",
      notification_id: "ntf_01testother000000000000001",
      data: { id: "ctm_01x" },
    });
    expect((await deliver(app, other, signPaddle(other, seconds(now)))).body).toEqual({
      received: true,
      duplicate: false,
      outcome: "ignored",
    });
    const stray = transactionCompleted({ transactionId: "txn_01testnotours00000000000", customData: null });
    expect((await deliver(app, stray.body, signPaddle(stray.body, seconds(now)))).body).toMatchObject({
      outcome: "unmatched",
    });
  });
});

describe("a subscription key as X-PAYMENT", () => {
  it("checkout → webhook → pays calls (credits first, then trial calls) → 402 after 30 days", async () => {
    const now = testClock(new Date("2026-06-01T10:00:00.000Z"));
    const { app } = subscriptionApp(now, { MOR_GRANT_CENTS: "4" });
    const id = await insertTender(t.db, { sourceRef: "mor-flow" });
    const { body: session } = await checkout(app, newEmail());
    const key = session.client_key;

    // Before the payment the key pays nothing.
    const unpaid = await getJson(app, `/v1/tenders/${id}`, { "x-payment": key });
    expect(unpaid.res.status).toBe(402);
    expect((unpaid.body as ErrorBody).error.message).toMatch(/without a paid subscription/);

    expect((await pay(app, now, session.checkout_id)).body).toMatchObject({ outcome: "granted" });
    // Preserved trial calls of an upgraded trial key (seeded with their ledger row).
    await seedAccount(t.db, key, {
      cents: 0,
      trialCalls: 2,
      kind: "mor",
      morUntil: new Date("2026-07-01T10:00:00Z"),
    });

    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      statuses.push((await getJson(app, `/v1/tenders/${id}`, { "x-payment": key })).res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 402]);
    const state = await accountState(t.db, key);
    expect(state).toMatchObject({ balance_cents: 0, trial_calls: 0, ledger_cents: 0, ledger_trial_calls: 0 });
    const ledger = await t.db.query<{ delta_cents: number; delta_trial_calls: number }>(
      "SELECT delta_cents, delta_trial_calls FROM credit_ledger WHERE account_id = $1 AND reason = 'debit' ORDER BY id",
      [state?.id],
    );
    expect(ledger.rows).toEqual([
      { delta_cents: -2, delta_trial_calls: 0 },
      { delta_cents: -2, delta_trial_calls: 0 },
      { delta_cents: 0, delta_trial_calls: -1 },
      { delta_cents: 0, delta_trial_calls: -1 },
    ]);
    const methods = await t.db.query<{ method: string; n: number }>(
      "SELECT method, count(*)::int AS n FROM api_calls WHERE endpoint = 'GET /v1/tenders/:id' AND method = 'subscription' GROUP BY method",
    );
    expect(methods.rows).toEqual([{ method: "subscription", n: 4 }]);

    // A renewal payment, then time runs out 30 days after it.
    now.advance(DAY_MS);
    const renewal = transactionCompleted({
      transactionId: "txn_01testrenewal000000000001",
      subscriptionId: `sub_for_${session.checkout_id}`,
      customData: null,
    });
    expect((await deliver(app, renewal.body, signPaddle(renewal.body, seconds(now)))).body).toMatchObject({
      outcome: "granted",
    });
    now.advance(59 * DAY_MS - 1); // 2026-07-31T09:59:59.999: the renewal extended 2026-07-01 by 30 days
    expect((await getJson(app, `/v1/tenders/${id}`, { "x-payment": key })).res.status).toBe(200);
    const expiry = (await accountState(t.db, key))?.mor_until;
    expect(expiry?.toISOString()).toBe("2026-07-31T10:00:00.000Z");
    now.advance(2);
    const expired = await getJson(app, `/v1/tenders/${id}`, { "x-payment": key });
    expect(expired.res.status).toBe(402);
    expect((expired.body as ErrorBody).error.message).toBe(
      "The subscription of this key expired at 2026-07-31T10:00:00.000Z.",
    );
    expect((expired.body as ErrorBody).error.hint).toContain("POST /v1/mor/checkout");
    // Expired with credits left: they stay (credits never expire) and still pay as x-client-key.
    expect(await accountState(t.db, key)).toMatchObject({ balance_cents: 2, ledger_cents: 2 });
    expect((await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key })).res.status).toBe(200);
  });

  it("renews from the later of now and the current expiry", async () => {
    const now = testClock(new Date("2026-06-01T00:00:00.000Z"));
    const { app } = subscriptionApp(now);
    const { body: session } = await checkout(app, newEmail());
    await pay(app, now, session.checkout_id);
    const until = async () => (await accountState(t.db, session.client_key))?.mor_until?.toISOString();
    expect(await until()).toBe("2026-07-01T00:00:00.000Z");
    now.advance(10 * DAY_MS); // early renewal: extends the current expiry
    await pay(app, now, session.checkout_id, { eventId: "evt_01testrenew1000000000000001" });
    expect(await until()).toBe("2026-07-31T00:00:00.000Z");
    now.advance(60 * DAY_MS); // lapsed (2026-08-10): extends from now
    await pay(app, now, session.checkout_id, { eventId: "evt_01testrenew2000000000000001" });
    expect(await until()).toBe("2026-09-09T00:00:00.000Z");
    expect(await accountState(t.db, session.client_key)).toMatchObject({
      balance_cents: 7500,
      ledger_cents: 7500,
    });
  });

  it("refunds a call that finds nothing", async () => {
    const { app, now } = subscriptionApp();
    const { body: session } = await checkout(app, newEmail());
    await pay(app, now, session.checkout_id);
    expect(
      (await getJson(app, "/v1/tenders/987654321", { "x-payment": session.client_key })).res.status,
    ).toBe(404);
    expect(await accountState(t.db, session.client_key)).toMatchObject({
      balance_cents: 2500,
      ledger_cents: 2500,
    });
  });

  it("is not a prepaid credit key, and a credit key is not a subscription key", async () => {
    const { app, now } = subscriptionApp();
    const id = await insertTender(t.db, { sourceRef: "mor-kinds" });
    const creditKey = "plain-credit-key-000000001";
    await seedAccount(t.db, creditKey, { cents: 100 });
    const wrong = await getJson(app, `/v1/tenders/${id}`, { "x-payment": creditKey });
    expect(wrong.res.status).toBe(402);
    expect((wrong.body as ErrorBody).error.message).toMatch(
      /without a paid subscription \(a prepaid credit key/,
    );
    expect((wrong.body as ErrorBody).error.hint).toContain("x-client-key");
    // A subscription key may also spend its credits as x-client-key (credits never expire).
    const { body: session } = await checkout(app, newEmail());
    await pay(app, now, session.checkout_id);
    expect((await getJson(app, `/v1/tenders/${id}`, { "x-client-key": session.client_key })).res.status).toBe(
      200,
    );
    // It never pays for a credit bundle.
    const bundle = await postJson(
      app,
      "/v1/billing/credits/5",
      {},
      {
        "x-client-key": session.client_key,
        "x-payment": session.client_key,
      },
    );
    expect(bundle.res.status).toBe(402);
    expect(await accountState(t.db, session.client_key)).toMatchObject({ balance_cents: 2498 });
    // GET /v1/billing shows the subscription.
    const billing = await getJson(app, "/v1/billing", { "x-client-key": session.client_key });
    expect(billing.body.data).toMatchObject({
      kind: "mor",
      balance_cents: 2498,
      subscription: { active: true, expires_at: new Date(now().getTime() + 30 * DAY_MS).toISOString() },
    });
  });

  it("unknown X-PAYMENT values still reach the dev token method", async () => {
    const { app } = subscriptionApp();
    const id = await insertTender(t.db, { sourceRef: "mor-dev" });
    const token = await devToken(app, "GET /v1/tenders/:id");
    expect((await getJson(app, `/v1/tenders/${id}`, { "x-payment": token })).res.status).toBe(200);
    const unknown = await getJson(app, `/v1/tenders/${id}`, { "x-payment": "unknown-key-not-an-account-1" });
    expect(unknown.res.status).toBe(402);
    expect((unknown.body as ErrorBody).error.hint).toContain("POST /v1/dev-faucet");
  });
});

describe("without a configured provider", () => {
  it("does not serve checkout or webhook, and pricing says the subscription is unavailable", async () => {
    const { app } = buildTestApp({ db: t.db });
    for (const path of ["/v1/mor/checkout", "/v1/mor/webhook"]) {
      const { res, body } = await postJson(app, path, { email: "a@example.com" });
      expect(res.status).toBe(404);
      expect((body as ErrorBody).error.message).toBe(`No route POST ${path}.`);
      expect((body as ErrorBody).error.hint).toContain("no subscription");
    }
    const pricing = await getJson(app, "/v1/pricing");
    expect((pricing.body.data as { subscription: { available: boolean } }).subscription.available).toBe(
      false,
    );
    const configured = subscriptionApp();
    const offered = await getJson(configured.app, "/v1/pricing");
    expect((offered.body.data as { subscription: { available: boolean } }).subscription.available).toBe(true);
  });

  it("refuses a partial provider configuration with one line", () => {
    expect(() => subscriptionSettingsFrom(loadConfig({ MOR_API_KEY: PADDLE_TEST_KEY }))).toThrow(ConfigError);
    expect(() => subscriptionSettingsFrom(loadConfig({ MOR_API_KEY: PADDLE_TEST_KEY }))).toThrow(
      /^MOR_PRICE_ID: required when any of MOR_API_KEY, MOR_PRICE_ID, MOR_WEBHOOK_SECRET is set/,
    );
    expect(subscriptionSettingsFrom(loadConfig({}))).toBeNull();
  });
});

describe("OpenAPI when everything is configured", () => {
  it("documents checkout, webhook, stats and billing with their error responses, and stays valid", async () => {
    const { app } = buildTestApp({
      db: t.db,
      env: morEnv({ OPERATOR_KEY: "operator-key-for-tests-0123456789" }),
    });
    const { body } = await getJson(app, "/openapi.json");
    const result = await new Validator().validate(body as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors).toBeUndefined();
    const paths = body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const statuses = (path: string, method: string) =>
      Object.keys(paths[path]?.[method]?.responses ?? {}).sort();
    expect(statuses("/v1/mor/checkout", "post")).toEqual(["200", "400", "429", "500"]);
    expect(statuses("/v1/mor/webhook", "post")).toEqual(["200", "400", "429", "500"]);
    expect(statuses("/v1/stats", "get")).toEqual(["200", "401", "403", "429", "500"]);
    expect(statuses("/v1/billing", "get")).toEqual(["200", "400", "404", "429", "500"]);
    expect(statuses("/v1/billing/credits/{amount}", "post")).toEqual(["200", "400", "402", "429", "500"]);
  });
});
