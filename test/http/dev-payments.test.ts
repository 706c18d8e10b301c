import { describe, expect, it } from "vitest";
import { buildTestApp, devToken, getJson, postJson, testClock } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

const t = useTestDb();
const TENDER = "GET /v1/tenders/:id";

type ErrorBody = { error: { code: string; message: string; hint: string } };

describe("POST /v1/dev-faucet", () => {
  it("issues a single-use token for a priced endpoint", async () => {
    const now = testClock(new Date("2026-03-01T12:00:00.000Z"));
    const { app } = buildTestApp({ db: t.db, now });
    const { res, body } = await postJson(app, "/v1/dev-faucet", { endpoint: TENDER });
    expect(res.status).toBe(200);
    expect(body).toEqual({
      token: expect.stringMatching(/^dev_[A-Za-z0-9_-]{32}$/),
      proof: expect.stringMatching(/^[0-9a-f]{64}$/),
      endpoint: TENDER,
      amount: "0.02",
      expires_at: "2026-03-01T12:15:00.000Z",
    });
    // Only the hash is stored, never the token.
    const { rows } = await t.db.query<{ token_hash: string }>("SELECT token_hash FROM dev_tokens");
    expect(rows.map((r) => r.token_hash)).toContain(body.proof);
    expect(JSON.stringify(rows)).not.toContain(body.token as string);
  });

  it.each([
    ["a free endpoint", "GET /v1/pricing"],
    ["an unknown endpoint", "GET /v1/whatever"],
    ["a path without method", "/v1/tenders/:id"],
  ])("refuses %s with 400 listing the priced endpoints", async (_, endpoint) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await postJson(app, "/v1/dev-faucet", { endpoint });
    expect(res.status).toBe(400);
    expect((body as ErrorBody).error.code).toBe("invalid_query");
    expect((body as ErrorBody).error.message).toContain(endpoint);
    expect((body as ErrorBody).error.hint).toContain("GET /v1/tenders/:id");
  });

  it("does not exist in x402 mode", async () => {
    const { app } = buildTestApp({ db: t.db, env: { PAYMENTS_MODE: "x402" } });
    const { res, body } = await postJson(app, "/v1/dev-faucet", { endpoint: TENDER });
    expect(res.status).toBe(404);
    expect((body as ErrorBody).error.code).toBe("not_found");
  });
});

describe("paying with a dev token", () => {
  it("serves the call once with meta.paid and meta.price_usd, then refuses the same token", async () => {
    const { app } = buildTestApp({ db: t.db });
    const id = await insertTender(t.db, { sourceRef: "pay-once" });
    const token = await devToken(app, TENDER);

    const first = await getJson(app, `/v1/tenders/${id}`, { "x-payment": token });
    expect(first.res.status).toBe(200);
    expect(first.body.meta).toMatchObject({ paid: true, price_usd: "0.02" });

    const again = await getJson(app, `/v1/tenders/${id}`, { "x-payment": token });
    expect(again.res.status).toBe(402);
    const error = (again.body as ErrorBody).error;
    expect(error.code).toBe("payment_required");
    expect(error.message).toMatch(/already been used/);
    expect(error.hint).toContain("POST /v1/dev-faucet");
  });

  it("answers 402 with a faucet hint when no payment is sent", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, "/v1/tenders/1");
    expect(res.status).toBe(402);
    expect((body as ErrorBody).error).toEqual({
      code: "payment_required",
      message: "GET /v1/tenders/:id costs 0.02 USD per call; no payment was sent.",
      hint: 'Get a token with POST /v1/dev-faucet and body {"endpoint": "GET /v1/tenders/:id"}, then retry with header X-PAYMENT: <token>. Each token pays for one call.',
    });
  });

  it("refuses a token issued for another endpoint", async () => {
    const { app } = buildTestApp({ db: t.db });
    const id = await insertTender(t.db, { sourceRef: "wrong-endpoint" });
    const token = await devToken(app, "GET /v1/search");
    const { res, body } = await getJson(app, `/v1/tenders/${id}`, { "x-payment": token });
    expect(res.status).toBe(402);
    expect((body as ErrorBody).error.message).toBe(
      'The X-PAYMENT token was issued for "GET /v1/search", not for "GET /v1/tenders/:id".',
    );
  });

  it("refuses an expired token", async () => {
    const now = testClock();
    const { app } = buildTestApp({ db: t.db, now, env: { DEV_TOKEN_TTL_SECONDS: "60" } });
    const id = await insertTender(t.db, { sourceRef: "expired" });
    const token = await devToken(app, TENDER);
    now.advance(60_000);
    const { res, body } = await getJson(app, `/v1/tenders/${id}`, { "x-payment": token });
    expect(res.status).toBe(402);
    expect((body as ErrorBody).error.message).toMatch(/^The X-PAYMENT token expired at /);
  });

  it("accepts a token just before it expires", async () => {
    const now = testClock();
    const { app } = buildTestApp({ db: t.db, now, env: { DEV_TOKEN_TTL_SECONDS: "60" } });
    const id = await insertTender(t.db, { sourceRef: "not-expired" });
    const token = await devToken(app, TENDER);
    now.advance(59_999);
    expect((await app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } })).status).toBe(200);
  });

  it("refuses unknown and foreign tokens", async () => {
    const { app } = buildTestApp({ db: t.db });
    const unknown = await getJson(app, "/v1/tenders/1", { "x-payment": "dev_notarealtoken" });
    expect(unknown.res.status).toBe(402);
    expect((unknown.body as ErrorBody).error.message).toBe("The X-PAYMENT token is unknown to this service.");
    const foreign = await getJson(app, "/v1/tenders/1", { "x-payment": "eyJ4NDAyVmVyc2lvbiI6MX0=" });
    expect(foreign.res.status).toBe(402);
    expect((foreign.body as ErrorBody).error.message).toMatch(/not a token issued by this service/);
  });

  it("does not charge for a 404: the token stays valid", async () => {
    const { app } = buildTestApp({ db: t.db });
    const token = await devToken(app, TENDER);
    const missing = await getJson(app, "/v1/tenders/987654321", { "x-payment": token });
    expect(missing.res.status).toBe(404);
    expect((missing.body as ErrorBody).error.code).toBe("not_found");
    const id = await insertTender(t.db, { sourceRef: "after-404" });
    expect((await app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } })).status).toBe(200);
  });

  it("validates before charging: a 400 leaves the token unused", async () => {
    const { app } = buildTestApp({ db: t.db });
    const token = await devToken(app, TENDER);
    expect((await app.request("/v1/tenders/abc", { headers: { "x-payment": token } })).status).toBe(400);
    const id = await insertTender(t.db, { sourceRef: "after-400" });
    expect((await app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } })).status).toBe(200);
  });

  it("serves exactly one of many concurrent requests with the same token", async () => {
    const { app } = buildTestApp({ db: t.db });
    const id = await insertTender(t.db, { sourceRef: "race" });
    const token = await devToken(app, TENDER);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () =>
        Promise.resolve(app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } })).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(11);
  });

  it("records each paid call for operator statistics", async () => {
    const { app } = buildTestApp({ db: t.db });
    const id = await insertTender(t.db, { sourceRef: "recorded" });
    const token = await devToken(app, TENDER);
    const res = await app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } });
    const requestId = res.headers.get("x-request-id");
    const { rows } = await t.db.query<{ endpoint: string; method: string; price_cents: number }>(
      "SELECT endpoint, method, price_cents FROM api_calls WHERE request_id = $1",
      [requestId],
    );
    expect(rows).toEqual([{ endpoint: TENDER, method: "dev", price_cents: 2 }]);
  });

  it("in x402 mode, refuses a dev token with the x402 requirements", async () => {
    const { app } = buildTestApp({ db: t.db, env: { PAYMENTS_MODE: "x402" } });
    const { res, body } = await getJson(app, "/v1/tenders/1", { "x-payment": "dev_whatever" });
    expect(res.status).toBe(402);
    expect((body as ErrorBody).error.message).toMatch(/neither a key issued by this service nor an x402 v1/);
    expect(res.headers.get("payment-required")).toBeTruthy();
  });
});
