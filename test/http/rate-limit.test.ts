import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, testClock } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

const t = useTestDb();
// Priced calls on a database without any tender are refused before payment (test/http/empty-database.test.ts).
beforeAll(async () => {
  await insertTender(t.db, { sourceRef: "rate-limit-loaded" });
});
type ErrorBody = { error: { code: string; message: string; hint: string } };

function limitedApp(env: Record<string, string>) {
  const now = testClock();
  return { now, ...buildTestApp({ db: t.db, now, env }) };
}

type App = ReturnType<typeof buildTestApp>["app"];
const status = async (app: App, path: string, headers: Record<string, string> = {}) =>
  (await app.request(path, { headers })).status;

describe("rate limits", () => {
  it("answers 429 rate_limited with Retry-After past the threshold, and lets the client back in time", async () => {
    const { app, now } = limitedApp({ RATE_LIMIT_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i += 1) {
      expect(await status(app, "/v1/pricing")).toBe(200);
    }
    const res = await app.request("/v1/pricing");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("20"); // one request every 20 s at 3 per minute
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toContain("3 per minute");
    expect(body.error.hint).toContain("Retry after 20 s");
    now.advance(19_000);
    const early = await app.request("/v1/pricing");
    expect(early.status).toBe(429);
    expect(early.headers.get("retry-after")).toBe("1");
    now.advance(1_000);
    expect(await status(app, "/v1/pricing")).toBe(200);
    expect(await status(app, "/v1/pricing")).toBe(429);
  });

  it("limits every route, priced ones before the payment gate", async () => {
    const { app } = limitedApp({ RATE_LIMIT_PER_MINUTE: "60", RATE_LIMIT_BURST: "2" });
    expect(await status(app, "/v1/tenders/1")).toBe(402);
    expect(await status(app, "/openapi.json")).toBe(200);
    expect(await status(app, "/v1/tenders/1")).toBe(429);
    expect(await status(app, "/no-such-route")).toBe(429);
  });

  it("tells clients apart by client key, else by IP", async () => {
    const { app } = limitedApp({ RATE_LIMIT_PER_MINUTE: "2", RATE_LIMIT_TRUST_PROXY: "true" });
    const keyA = { "x-client-key": "rate-limit-key-aaaaaaaaaa" };
    const keyB = { "x-client-key": "rate-limit-key-bbbbbbbbbb" };
    const ip1 = { "x-forwarded-for": "203.0.113.9, 198.51.100.1" };
    const ip2 = { "x-forwarded-for": "198.51.100.2" };
    expect([await status(app, "/v1/pricing", keyA), await status(app, "/v1/pricing", keyA)]).toEqual([
      200, 200,
    ]);
    expect(await status(app, "/v1/pricing", keyA)).toBe(429);
    // Another key, and key-less clients, have buckets of their own.
    expect(await status(app, "/v1/pricing", keyB)).toBe(200);
    expect(await status(app, "/v1/pricing", ip1)).toBe(200);
    expect(await status(app, "/v1/pricing", ip1)).toBe(200);
    expect(await status(app, "/v1/pricing", ip1)).toBe(429);
    expect(await status(app, "/v1/pricing", ip2)).toBe(200);
    // The key decides, whatever the address: key A stays limited from a fresh IP.
    expect(await status(app, "/v1/pricing", { ...keyA, ...ip2 })).toBe(429);
    // The last X-Forwarded-For entry is the one the (single) trusted proxy added.
    expect(await status(app, "/v1/pricing", { "x-forwarded-for": "192.0.2.7, 198.51.100.1" })).toBe(429);
  });

  it("ignores X-Forwarded-For unless the proxy is trusted", async () => {
    const { app } = limitedApp({ RATE_LIMIT_PER_MINUTE: "1" });
    expect(await status(app, "/v1/pricing", { "x-forwarded-for": "198.51.100.3" })).toBe(200);
    expect(await status(app, "/v1/pricing", { "x-forwarded-for": "198.51.100.4" })).toBe(429);
  });

  it("uses the socket address on a real server", async () => {
    const { app } = limitedApp({ RATE_LIMIT_PER_MINUTE: "2" });
    // In-process requests have no socket: they share the "unknown" bucket, which is now empty.
    expect([await status(app, "/v1/pricing"), await status(app, "/v1/pricing")]).toEqual([200, 200]);
    expect(await status(app, "/v1/pricing")).toBe(429);
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${base}/v1/pricing`);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("is off with RATE_LIMIT_PER_MINUTE=0", async () => {
    const { app } = limitedApp({ RATE_LIMIT_PER_MINUTE: "0" });
    for (let i = 0; i < 50; i += 1) {
      expect(await status(app, "/v1/pricing")).toBe(200);
    }
  });
});
