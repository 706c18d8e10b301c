import { beforeAll, describe, expect, it } from "vitest";
import { loadCases, loadKeyNames } from "../../bench/load-cases.ts";
import { seedSynthetic } from "../../src/ingest/synthetic/seed.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp } from "../helpers/app.ts";
import { accountState, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";

/**
 * The load benchmark's mix (bench/load-cases.ts) against the real app: every request of every case is answered
 * 2xx, an MCP call is a paid tool result, and every paid call debits one of its case's keys by the case's price.
 * What the benchmark counts as throughput is then served, paid calls, and a change of a route or a tool that
 * would turn its mix into 4xx answers fails here rather than in a benchmark run.
 */
const t = useTestDb();
const keys = loadKeyNames(3);
const allKeys = [...keys.search, ...keys.tender, keys.tenderSingle, ...keys.mcp];
let tenderIds: number[];

beforeAll(async () => {
  await seedSynthetic(
    { db: t.db, log: createLogger("silent"), now: () => new Date() },
    {
      entries: 200,
      seed: 643,
      outDir: null,
      http: { userAgent: "test", timeoutMs: 5_000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    },
  );
  tenderIds = (await t.db.query<{ id: number }>("SELECT id FROM tenders ORDER BY id LIMIT 5")).rows.map(
    (r) => r.id,
  );
  for (const key of allKeys) {
    await seedAccount(t.db, key, { cents: 10_000 });
  }
});

async function balances(): Promise<number> {
  let total = 0;
  for (const key of allKeys) {
    const state = await accountState(t.db, key);
    expect(state?.ledger_cents, `ledger of ${key}`).toBe(state?.balance_cents);
    total += state?.balance_cents ?? 0;
  }
  return total;
}

describe("load benchmark cases", () => {
  it("are served 2xx and paid from their keys, request by request", async () => {
    const { app } = buildTestApp({ db: t.db });
    const cases = loadCases({ tenderIds, keys });
    expect(cases.map((c) => c.route)).toEqual([
      "GET /health",
      "GET /v1/pricing",
      "GET /v1/search",
      "GET /v1/tenders/:id",
      "GET /v1/tenders/:id, one key",
      "POST /mcp tools/call",
    ]);
    let expectedDebit = 0;
    const before = await balances();
    for (const loadCase of cases) {
      const used = new Set<string>();
      // Two turns of the longest mix (8 searches), so every query and every key is sent at least once.
      for (let i = 0; i < 16; i++) {
        const request = loadCase.next();
        const key =
          request.headers?.["x-client-key"] ?? (request.body?.match(/"client_key":"([^"]+)"/) ?? [])[1];
        if (key !== undefined) {
          used.add(key);
        }
        const res = await app.request(request.path, {
          method: request.method,
          headers: request.headers,
          body: request.body,
        });
        const text = await res.text();
        expect(res.status, `${loadCase.route} ${request.path} ${request.body ?? ""}: ${text}`).toBeLessThan(
          300,
        );
        expect(res.status).toBeGreaterThanOrEqual(200);
        if (loadCase.route.startsWith("POST /mcp")) {
          const result = (JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: unknown } })
            .result;
          expect(result?.isError, text).toBeFalsy();
          expect((result?.structuredContent as { meta?: { paid?: boolean } } | undefined)?.meta?.paid).toBe(
            true,
          );
        }
        expectedDebit += loadCase.priceCents;
      }
      expect([...used].sort(), loadCase.route).toEqual([...loadCase.keys].sort());
    }
    expect(expectedDebit).toBeGreaterThan(0);
    expect(before - (await balances())).toBe(expectedDebit);
  });
});
