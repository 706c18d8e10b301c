import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, devToken, getJson, postJson, testClock } from "../helpers/app.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
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

const OPERATOR_KEY = "operator-key-for-tests-0123456789";
const HOUR_MS = 3_600_000;
type ErrorBody = { error: { code: string; message: string; hint: string } };

describe("GET /v1/stats", () => {
  it("is disabled (404) when no OPERATOR_KEY is configured", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, "/v1/stats", { "x-operator-key": OPERATOR_KEY });
    expect(res.status).toBe(404);
    expect((body as ErrorBody).error.code).toBe("not_found");
    expect((body as ErrorBody).error.hint).toContain("OPERATOR_KEY");
  });

  it("answers 401 without the header and 403 with a wrong key, in the envelope", async () => {
    const { app } = buildTestApp({ db: t.db, env: { OPERATOR_KEY } });
    const missing = await getJson(app, "/v1/stats");
    expect(missing.res.status).toBe(401);
    expect((missing.body as ErrorBody).error).toMatchObject({ code: "unauthorized" });
    for (const wrong of ["nope", `${OPERATOR_KEY}x`, OPERATOR_KEY.slice(0, -1), OPERATOR_KEY.toUpperCase()]) {
      const res = await getJson(app, "/v1/stats", { "x-operator-key": wrong });
      expect(res.res.status, wrong).toBe(403);
      expect((res.body as ErrorBody).error.code).toBe("forbidden");
      expect(JSON.stringify(res.body)).not.toContain(OPERATOR_KEY);
    }
  });

  it("counts records, calls, revenue, accounts and leads", async () => {
    await truncateAll(t.db);
    const now = testClock(new Date("2026-06-10T12:00:00.000Z"));
    const { app } = buildTestApp({
      db: t.db,
      now,
      env: {
        OPERATOR_KEY,
        MOR_API_URL: paddle.url,
        MOR_API_KEY: PADDLE_TEST_KEY,
        MOR_PRICE_ID: PADDLE_TEST_PRICE,
        MOR_WEBHOOK_SECRET: PADDLE_TEST_SECRET,
      },
    });
    await t.db.query(
      `INSERT INTO ingest_runs (source, feed, location, status, started_at, finished_at, entries_new, errors)
       VALUES ('placsp', '643', 'test', 'succeeded', '2026-06-10T09:00:00Z', '2026-06-10T09:05:00Z', 1, 0)`,
    );
    const id = await insertTender(t.db, { sourceRef: "stats-1" });

    // Three days ago: one call paid with a dev token.
    now.advance(-3 * 24 * HOUR_MS);
    const token = await devToken(app, "GET /v1/tenders/:id");
    expect((await getJson(app, `/v1/tenders/${id}`, { "x-payment": token })).res.status).toBe(200);
    now.advance(3 * 24 * HOUR_MS - HOUR_MS);

    // An hour ago: a bundle bought, two calls from the balance, a subscription paid.
    const key = "stats-test-client-key-0001";
    const bundle = await devToken(app, "POST /v1/billing/credits/5");
    expect(
      (await postJson(app, "/v1/billing/credits/5", {}, { "x-client-key": key, "x-payment": bundle })).res
        .status,
    ).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      expect((await getJson(app, `/v1/tenders/${id}`, { "x-client-key": key })).res.status).toBe(200);
    }
    const checkout = await postJson(app, "/v1/mor/checkout", { email: "stats@example.com" });
    const checkoutId = String(checkout.body.checkout_id);
    const event = transactionCompleted({
      transactionId: checkoutId,
      customData: paddle.transactions.get(checkoutId)?.custom_data as Record<string, string>,
    });
    const signature = signPaddle(event.body, Math.floor(now().getTime() / 1000));
    const webhook = await app.request("/v1/mor/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "paddle-signature": signature },
      body: event.body,
    });
    expect(webhook.status).toBe(200);
    await postJson(app, "/v1/mor/checkout", { email: "another@example.com" });
    now.advance(HOUR_MS);

    const { res, body } = await getJson(app, "/v1/stats", { "x-operator-key": OPERATOR_KEY });
    expect(res.status).toBe(200);
    expect(body.meta).toMatchObject({ price_usd: "0.00", paid: false });
    expect(body.data).toEqual({
      generated_at: "2026-06-10T12:00:00.000Z",
      sources: [
        {
          source: "placsp",
          tenders: 1,
          awards: 0,
          last_ingestion: {
            status: "succeeded",
            started_at: "2026-06-10T09:00:00.000Z",
            finished_at: "2026-06-10T09:05:00.000Z",
            entries_new: 1,
            entries_updated: 0,
            errors: 0,
          },
          last_success_at: "2026-06-10T09:05:00.000Z",
        },
        { source: "ted", tenders: 0, awards: 0, last_ingestion: null, last_success_at: null },
      ],
      calls: [
        { endpoint: "GET /v1/tenders/:id", method: "credits", last_24h: 2, last_7d: 2, all_time: 2 },
        { endpoint: "GET /v1/tenders/:id", method: "dev", last_24h: 0, last_7d: 1, all_time: 1 },
        { endpoint: "POST /v1/billing/credits/5", method: "dev", last_24h: 1, last_7d: 1, all_time: 1 },
      ],
      revenue: [
        { method: "dev", currency: "USD", last_24h_cents: 500, last_7d_cents: 502, all_time_cents: 502 },
        { method: "mor", currency: "EUR", last_24h_cents: 2900, last_7d_cents: 2900, all_time_cents: 2900 },
      ],
      accounts: { credits: 2, mor: 1, mor_active: 1, balance_cents: 496 + 2500 },
      leads: { new: 1, contacted: 0, used: 0, paid: 1, lost: 0 },
    });
  });
});
