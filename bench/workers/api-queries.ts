import { serve } from "@hono/node-server";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDb } from "../../src/db/client.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { createPayments } from "../../src/payments/index.ts";

/**
 * Serves the real app on 127.0.0.1 from the benchmark database and times a fixed query mix over HTTP, one
 * request at a time (latency, not throughput). Each call is paid with a dev token issued beforehand, so the
 * token's single-use check is part of every measured call, as in production.
 */
const db = await openDb({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.DATA_DIR ?? "",
  poolSize: 4,
});
// One client sends every request: the per-client rate limit would measure itself, so it is off here.
const config = loadConfig({ LOG_LEVEL: "silent", INGEST_SCHEDULE: "off", RATE_LIMIT_PER_MINUTE: "0" });
const log = createLogger("silent");
const now = () => new Date();
const payments = createPayments({ db, now, mode: "dev", devTokenTtlSeconds: 3600 });
const app = createApp({ config, domain: { db, log, now }, payments });
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
await new Promise((resolve) => server.once("listening", resolve));
const address = server.address();
const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

const one = async <T>(sql: string): Promise<T> => (await db.query<T>(sql)).rows[0] as T;
const bigCompany = await one<{ id: number }>(
  "SELECT winner_company_id AS id FROM awards WHERE winner_company_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1",
);
const smallCompany = await one<{ id: number }>(
  "SELECT winner_company_id AS id FROM awards WHERE winner_company_id IS NOT NULL GROUP BY 1 ORDER BY count(*), 1 LIMIT 1",
);
const bigBuyer = await one<{ id: number }>(
  "SELECT buyer_id AS id FROM awards WHERE buyer_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1",
);
const smallBuyer = await one<{ id: number }>(
  "SELECT buyer_id AS id FROM awards WHERE buyer_id IS NOT NULL GROUP BY 1 ORDER BY count(*), 1 LIMIT 1",
);
const maxTender = await one<{ id: number }>("SELECT max(id)::int AS id FROM tenders");
const buyerName = await one<{ name: string }>(`SELECT name FROM buyers WHERE id = ${bigBuyer.id}`);
const companyName = await one<{ name: string }>(`SELECT name FROM companies WHERE id = ${bigCompany.id}`);
const served = new Set(
  (
    (await (await fetch(`${base}/v1/pricing`)).json()) as { data: { endpoints: { endpoint: string }[] } }
  ).data.endpoints.map((e) => e.endpoint),
);

// Deterministic pseudo-random tender ids.
let seed = 7;
const nextTender = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return 1 + (seed % maxTender.id);
};
const fragment = (name: string) => name.split(" ").slice(0, 2).join(" ");

type Case = { endpoint: string; label: string; path: () => string };
const cases: Case[] = [
  { endpoint: "GET /v1/search", label: "no filter", path: () => "/v1/search" },
  { endpoint: "GET /v1/search", label: "common word", path: () => "/v1/search?q=servicio" },
  {
    endpoint: "GET /v1/search",
    label: "common phrase",
    path: () => "/v1/search?q=mantenimiento%20de%20software",
  },
  { endpoint: "GET /v1/search", label: "rare word", path: () => "/v1/search?q=ciberseguridad" },
  { endpoint: "GET /v1/search", label: "no match", path: () => "/v1/search?q=zzyzx" },
  { endpoint: "GET /v1/search", label: "cpv 72", path: () => "/v1/search?cpv=72" },
  { endpoint: "GET /v1/search", label: "cpv 48210000", path: () => "/v1/search?cpv=48210000" },
  {
    endpoint: "GET /v1/search",
    label: "buyer fragment",
    path: () => `/v1/search?buyer=${encodeURIComponent(fragment(buyerName.name))}`,
  },
  {
    endpoint: "GET /v1/search",
    label: "company fragment",
    path: () => `/v1/search?company=${encodeURIComponent(fragment(companyName.name))}`,
  },
  { endpoint: "GET /v1/search", label: "tenders, region", path: () => "/v1/search?type=tender&region=ES3" },
  {
    endpoint: "GET /v1/search",
    label: "contracts, dates",
    path: () => "/v1/search?type=contract&from=2023-01-01&to=2023-12-31",
  },
  {
    endpoint: "GET /v1/search",
    label: "q + cpv + dates",
    path: () => "/v1/search?q=servicio&cpv=72&from=2022-01-01",
  },
  { endpoint: "GET /v1/search", label: "deep page", path: () => "/v1/search?page=400&size=50" },
  {
    endpoint: "GET /v1/search",
    label: "common word, deep page",
    path: () => "/v1/search?q=servicio&page=500&size=100",
  },
  {
    endpoint: "GET /v1/search",
    label: "tenders, company fragment",
    path: () => `/v1/search?type=tender&company=${encodeURIComponent(fragment(companyName.name))}`,
  },
  {
    endpoint: "GET /v1/search",
    label: "contracts, word + region",
    path: () => "/v1/search?type=contract&q=suministro&region=ES",
  },
  // One search, a page picked at random on each call (what a client paging through results does).
  {
    endpoint: "GET /v1/search",
    label: "common word, random pages",
    path: () => `/v1/search?q=servicio&page=${1 + (nextTender() % 200)}`,
  },
  {
    endpoint: "GET /v1/search",
    label: "cpv 72, random pages",
    path: () => `/v1/search?cpv=72&page=${1 + (nextTender() % 200)}`,
  },
  { endpoint: "GET /v1/tenders/:id", label: "random ids", path: () => `/v1/tenders/${nextTender()}` },
  { endpoint: "GET /v1/companies/:id", label: "big company", path: () => `/v1/companies/${bigCompany.id}` },
  {
    endpoint: "GET /v1/companies/:id",
    label: "small company",
    path: () => `/v1/companies/${smallCompany.id}`,
  },
  {
    endpoint: "GET /v1/companies/:id/awards",
    label: "big company",
    path: () => `/v1/companies/${bigCompany.id}/awards`,
  },
  {
    endpoint: "GET /v1/companies/:id/awards",
    label: "big company, deep page",
    path: () => `/v1/companies/${bigCompany.id}/awards?page=200&size=20`,
  },
  {
    endpoint: "GET /v1/buyers/:id/history",
    label: "big buyer",
    path: () => `/v1/buyers/${bigBuyer.id}/history`,
  },
  {
    endpoint: "GET /v1/buyers/:id/history",
    label: "small buyer",
    path: () => `/v1/buyers/${smallBuyer.id}/history`,
  },
];

const repeats = Number(process.env.BENCH_REPEATS ?? "30");
const results: { endpoint: string; label: string; first: number; ms: number[]; status: number }[] = [];
for (const c of cases.filter((c) => served.has(c.endpoint))) {
  const ms: number[] = [];
  let status = 0;
  let first = 0;
  for (let i = -1; i < repeats; i++) {
    const faucet = await fetch(`${base}/v1/dev-faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: c.endpoint }),
    });
    const { token } = (await faucet.json()) as { token: string };
    const started = performance.now();
    const res = await fetch(`${base}${c.path()}`, { headers: { "x-payment": token } });
    await res.arrayBuffer();
    const elapsed = performance.now() - started;
    status = res.status;
    if (i >= 0) {
      ms.push(elapsed);
    } else {
      first = elapsed;
    }
  }
  results.push({ endpoint: c.endpoint, label: c.label, first, ms, status });
}
server.close();
await db.close();
process.stdout.write(`${JSON.stringify({ results, indexBuild: null })}\n`);
