import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { buildTestApp, devToken, getJson, postJson, testClock } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const t = useTestDb();

describe("request ids", () => {
  it("puts a fresh uuid on every response, header and meta alike", async () => {
    const { app } = buildTestApp({ db: t.db });
    const first = await getJson(app, "/v1/pricing");
    const second = await getJson(app, "/v1/pricing");
    const id = first.res.headers.get("x-request-id");
    expect(id).toMatch(UUID);
    expect((first.body.meta as { request_id: string }).request_id).toBe(id);
    expect(second.res.headers.get("x-request-id")).not.toBe(id);
  });

  it("reuses the caller's X-Request-Id when it is a uuid, not otherwise", async () => {
    const { app } = buildTestApp({ db: t.db });
    const mine = "5b0c7a52-3f1e-4c8e-9f0a-1d2e3f4a5b6c";
    expect(
      (await app.request("/v1/pricing", { headers: { "x-request-id": mine } })).headers.get("x-request-id"),
    ).toBe(mine);
    const junk = await app.request("/v1/pricing", { headers: { "x-request-id": "<script>" } });
    expect(junk.headers.get("x-request-id")).toMatch(UUID);
  });

  it("is on error responses too", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request("/nope");
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });
});

describe("error envelope", () => {
  it("answers unknown paths 404 not_found in the envelope", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, "/v1/no-such-thing");
    expect(res.status).toBe(404);
    expect(body).toEqual({
      error: {
        code: "not_found",
        message: "No route GET /v1/no-such-thing.",
        hint: "See GET /openapi.json or GET /llms.txt for the routes this service answers.",
      },
    });
  });

  it("answers a wrong method on a known path 405 with Allow in the envelope", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request("/v1/pricing", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const { error } = (await res.json()) as { error: { code: string; hint: string } };
    expect(error.code).toBe("method_not_allowed");
    expect(error.hint).toContain("GET /v1/pricing");
  });

  it("answers malformed JSON with 400 invalid_query and a hint", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await postJson(app, "/v1/dev-faucet", "{not json");
    expect(res.status).toBe(400);
    const error = body.error as { code: string; message: string; hint: string };
    expect(error.code).toBe("invalid_query");
    expect(error.hint).toMatch(/valid JSON/);
  });

  it("answers a body over 64 KiB with 400 in the envelope", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await postJson(app, "/v1/dev-faucet", { endpoint: "x".repeat(70 * 1024) });
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({
      code: "invalid_query",
      message: "Request body is larger than 65536 bytes.",
    });
  });

  it("answers a missing or mistyped body field with 400 naming it", async () => {
    const { app } = buildTestApp({ db: t.db });
    const missing = await postJson(app, "/v1/dev-faucet", {});
    expect(missing.res.status).toBe(400);
    expect((missing.body.error as { message: string }).message).toBe('body field "endpoint" is required.');
    const wrongType = await postJson(app, "/v1/dev-faucet", { endpoint: 42 });
    expect((wrongType.body.error as { message: string }).message).toBe(
      'body field "endpoint" must be a string (got 42).',
    );
  });

  it("answers an internal failure 500 without leaking internals, and charges nothing", async () => {
    // The domain sees a database that fails; payments keep the real one, so we can check the token afterwards.
    const failing: Db = {
      ...t.db,
      query: async () => {
        throw new Error("connection to /var/secret/db.sock refused at pg/lib/client.js:42");
      },
    };
    const { app } = buildTestApp({ db: t.db, domainDb: failing });
    const id = await insertTender(t.db, { sourceRef: "core-500" });
    const token = await devToken(app, "GET /v1/tenders/:id");
    const res = await app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/secret|client\.js|stack|at /);
    const body = JSON.parse(text) as { error: { code: string; message: string; hint: string } };
    expect(body.error.code).toBe("internal");
    expect(body.error.message).toBe("Internal server error.");
    expect(body.error.hint).toContain(res.headers.get("x-request-id") ?? "missing");
    // The token was released: it still pays for a call on a healthy app.
    const healthy = buildTestApp({ db: t.db });
    const retry = await healthy.app.request(`/v1/tenders/${id}`, { headers: { "x-payment": token } });
    expect(retry.status).toBe(200);
  });
});

describe("health", () => {
  it("reports the engine and database reachability", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, "/health");
    expect(res.status).toBe(200);
    expect(body).toEqual({
      status: "ok",
      database: { engine: t.db.engine, reachable: true },
      ingestion: [
        { source: "placsp", last_success_at: null, last_success_age_seconds: null, last_error: null },
        { source: "ted", last_success_at: null, last_success_age_seconds: null, last_error: null },
      ],
      // An app without a process around it runs no scheduled ingestion.
      ingest_leader: { role: "auto", leading: false, since: null },
      payments_mode: "dev",
    });
  });

  it("shows per source the last successful ingest and the last failure, and keeps serving", async () => {
    await t.db.query(
      `INSERT INTO ingest_runs (source, status, started_at, finished_at, message)
       VALUES ('placsp', 'succeeded', '2026-11-20T01:00:00Z', '2026-11-20T01:04:00Z', NULL),
              ('placsp', 'failed', '2026-11-21T01:00:00Z', '2026-11-21T01:00:05Z', 'getaddrinfo ENOTFOUND contrataciondelsectorpublico.gob.es'),
              ('placsp', 'succeeded', '2026-11-19T01:00:00Z', '2026-11-19T01:03:00Z', NULL),
              ('ted', 'failed', '2026-11-21T02:00:00Z', NULL, 'HTTP 503 from the TED Search API')`,
    );
    const { app } = buildTestApp({ db: t.db, now: testClock(new Date("2026-11-21T01:04:30.000Z")) });
    const { res, body } = await getJson(app, "/health");
    expect(res.status).toBe(200);
    expect(body.ingestion).toEqual([
      {
        source: "placsp",
        last_success_at: "2026-11-20T01:04:00.000Z",
        // One day and 30 s before the domain clock's now.
        last_success_age_seconds: 86_430,
        last_error: {
          at: "2026-11-21T01:00:05.000Z",
          message: "getaddrinfo ENOTFOUND contrataciondelsectorpublico.gob.es",
        },
      },
      // A run that died without finishing is dated by its start.
      {
        source: "ted",
        last_success_at: null,
        last_success_age_seconds: null,
        last_error: { at: "2026-11-21T02:00:00.000Z", message: "HTTP 503 from the TED Search API" },
      },
    ]);
    await t.db.query("DELETE FROM ingest_runs");
  });

  it("answers 503 when the database is unreachable", async () => {
    const down: Db = {
      ...t.db,
      query: async () => {
        throw new Error("down");
      },
    };
    const { app } = buildTestApp({ db: t.db, domainDb: down });
    const { res, body } = await getJson(app, "/health");
    expect(res.status).toBe(503);
    expect(body.status).toBe("unavailable");
  });
});
