import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { serve } from "@hono/node-server";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { type Db, openDb } from "../../src/db/client.ts";
import { openLanes } from "../../src/db/lanes.ts";
import { contentWord } from "../../src/ingest/synthetic/lexicon.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { startModuleWorker } from "../../src/lib/module-worker.ts";
import { createPayments } from "../../src/payments/index.ts";
import type {
  AroundIngest,
  CaseResult,
  IngestHolds,
  IngestOutcome,
  MemoryReading,
  TableSize,
  WindowResult,
  WorkerOutput,
} from "../api-types.ts";
import { ingestCorpus } from "../ingest-corpus.ts";
import { benchNow, runWorker } from "../lib.ts";
import { describeCorpusText } from "../text-stats.ts";

/**
 * Serves the real app on 127.0.0.1 from the benchmark database and times, one request at a time (latency, not
 * throughput): GET /health (the floor of this run: HTTP, routing and one database round trip), a fixed query mix
 * per endpoint, then the search mix before, during and just after an ingest of new entries
 * (BENCH_NEW_CORPUS_DIR; skipped when empty). Each paid call uses a dev token issued just before it (not timed),
 * so the token's single-use check is part of every measured call, as in production.
 *
 * The ingest runs in its own process on PostgreSQL (bench/workers/ingest-placsp.ts, the same database), and
 * inside this process on PGlite, where it shares the one connection with the queries.
 */
const engine = process.env.DATABASE_URL ? "postgres" : "pglite";
const opened = await openDb({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.DATA_DIR ?? "",
  poolSize: 4,
});
/**
 * On PGlite, when the in-process ingest's transactions and scripts (VACUUM, ANALYZE) held the engine, [start, end]
 * in ms: a transaction from its first statement (after BEGIN, which may have queued behind a request's statement)
 * to the end of its COMMIT. The requests of this worker make neither (a dev-token payment is single statements),
 * so every one is the ingest's.
 */
const holds: [number, number][] = [];
async function held<T>(work: (began: () => void) => Promise<T>): Promise<T> {
  let start = performance.now();
  try {
    return await work(() => {
      start = performance.now();
    });
  } finally {
    holds.push([start, performance.now()]);
  }
}
const recorded: Db =
  engine === "pglite"
    ? {
        engine: opened.engine,
        query: (sql, params) => opened.query(sql, params),
        exec: (sql) => held(() => opened.exec(sql)),
        transaction: (fn) =>
          held((began) =>
            opened.transaction((tx) => {
              began();
              return fn(tx);
            }),
          ),
        close: () => opened.close(),
      }
    : opened;
/** This process's garbage-collection pauses, [start, end] in ms on the clock of `performance.now()`. */
const gcPauses: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcPauses.push([entry.startTime, entry.startTime + entry.duration]);
  }
}).observe({ entryTypes: ["gc"] });
// As the server wires them (src/server.ts): requests in the foreground, the in-process ingest in the background.
const lanesOn = process.env.BENCH_LANES !== "off";
// Where an in-process ingest parses its pages: on a thread of its own, as the server does, or inline.
const parse = process.env.BENCH_PARSE === "inline" ? "inline" : "thread";
// On PostgreSQL the ingest runs in a process of its own unless asked to run in this one: on a thread of its own with
// its own pool, as a server leading the ingest runs it (src/fleet/leader-thread.ts), or on the serving thread, as
// such a server ran it before.
const pgIngest: WorkerOutput["pgIngest"] =
  engine === "postgres" &&
  (process.env.BENCH_PG_INGEST === "thread" || process.env.BENCH_PG_INGEST === "in-process")
    ? process.env.BENCH_PG_INGEST
    : "own-process";
const lanes = lanesOn ? openLanes(recorded) : { foreground: recorded, background: recorded };
const db = lanes.foreground;
// One client sends every request: the per-client rate limit would measure itself, so it is off here.
const config = loadConfig({ LOG_LEVEL: "silent", INGEST_SCHEDULE: "off", RATE_LIMIT_PER_MINUTE: "0" });
const log = createLogger("silent");
// A fixed clock at the end of the corpus (benchNow), read once: the ingest below adds newer tenders.
const clock = await benchNow(db);
const now = () => clock;
const payments = createPayments({ db, now, mode: "dev", devTokenTtlSeconds: 3600 });
const app = createApp({ config, domain: { db, log, now }, payments });
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
await new Promise((resolve) => server.once("listening", resolve));
const address = server.address();
const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
const repeats = Number(process.env.BENCH_REPEATS ?? "30");
const windowMs = Number(process.env.BENCH_WINDOW_SECONDS ?? "20") * 1000;
// A pause after each search around the ingest (--think-ms): 0 keeps one request always in flight; a pause
// leaves the engine idle between requests, as a lightly used instance is, so the ingest works in the gaps.
const thinkMs = Number(process.env.BENCH_THINK_MS ?? "0");

// Memory is read after a full collection when the worker runs with --expose-gc (runWorker does). Collections
// run a few times with pauses: array buffers are released by finalizers after the collection.
const gc = (globalThis as { gc?: () => void }).gc;
const collect = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const mb = (bytes: number) => bytes / 1024 / 1024;
const reading = (): MemoryReading => {
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), externalMb: mb(m.external + m.arrayBuffers) };
};

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
  (await db.query<T>(sql, params)).rows[0] as T;
const counts = () =>
  one<{ tenders: number; awards: number }>(
    "SELECT (SELECT count(*) FROM tenders)::int AS tenders, (SELECT count(*) FROM awards)::int AS awards",
  );
const corpusCounts = await counts();
const text = await describeCorpusText(db);
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
// The company at the median of the award counts (ties by id): what a typical paying user looks up.
const medianCompany = await one<{ id: number; awards: number }>(
  `SELECT id, n AS awards FROM (
     SELECT winner_company_id AS id, count(*)::int AS n FROM awards WHERE winner_company_id IS NOT NULL GROUP BY 1
   ) c ORDER BY n, id
   OFFSET (SELECT count(DISTINCT winner_company_id) / 2 FROM awards)
   LIMIT 1`,
);
const companyAwards = await one<{ big: number; small: number }>(
  `SELECT (SELECT count(*)::int FROM awards WHERE winner_company_id = ${bigCompany.id}) AS big,
          (SELECT count(*)::int FROM awards WHERE winner_company_id = ${smallCompany.id}) AS small`,
);
const maxTender = await one<{ id: number }>("SELECT max(id)::int AS id FROM tenders");
const buyerName = await one<{ name: string }>(`SELECT name FROM buyers WHERE id = ${bigBuyer.id}`);
const companyName = await one<{ name: string }>(`SELECT name FROM companies WHERE id = ${bigCompany.id}`);
// The most frequent words of 4+ letters in the titles and descriptions of a sample of tenders, most frequent
// first: a long query of words a user could plausibly type, whatever the synthetic vocabulary is.
const commonWords = (
  await db.query<{ word: string }>(
    `SELECT word FROM (
       SELECT regexp_split_to_table(lower(coalesce(title, '') || ' ' || coalesce(description, '')), '[^[:alnum:]áéíóúüñ]+') AS word
         FROM (SELECT title, description FROM tenders ORDER BY id LIMIT 2000) sample
     ) words
     WHERE length(word) >= 4 AND word !~ '[0-9]'
     GROUP BY word ORDER BY count(*) DESC, word LIMIT 60`,
  )
).rows.map((r) => r.word);
const longQuery: string[] = [];
for (const word of commonWords) {
  if (longQuery.length === 25 || [...longQuery, word].join(" ").length > 200) {
    break;
  }
  longQuery.push(word);
}
// Research topics, by how often their words occur in the synthetic lexicon (src/ingest/synthetic/lexicon.ts, a
// Zipf law over ranked content words; amplify re-draws every content word from it): two frequent topics from
// the head ("mantenimiento" rank 5 and "software" rank 19; "ciberseguridad" rank 84), one of mid frequency
// ("ascensores", rank 1,418 of the 2,939 base words) and one rare (the tail word of rank 20,000, an invented
// product name as a user would type a brand). Each label says how many tenders match it.
const RARE_TOPIC = contentWord(20_000);
const topics = ["mantenimiento de software", "ciberseguridad", "ascensores", RARE_TOPIC];
const topicMatches = new Map<string, number>();
for (const topic of [...topics, buyerName.name]) {
  const matched = await db
    .query<{ n: number }>(
      `SELECT count(*)::int AS n FROM search_rows
        WHERE kind = 'tender' AND tsv @@ plainto_tsquery('spanish', immutable_unaccent($1))`,
      [topic],
    )
    .catch(() => ({ rows: [{ n: Number.NaN }] }));
  topicMatches.set(topic, matched.rows[0]?.n ?? Number.NaN);
}
const matchesText = (topic: string) =>
  `${(topicMatches.get(topic) ?? Number.NaN).toLocaleString("en")} tenders match`;
const served = new Set(
  (
    (await (await fetch(`${base}/v1/pricing`)).json()) as { data: { endpoints: { endpoint: string }[] } }
  ).data.endpoints.map((e) => e.endpoint),
);
await collect();
const afterLoad = reading();

// Deterministic pseudo-random tender ids.
let seed = 7;
const nextTender = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return 1 + (seed % maxTender.id);
};
const fragment = (name: string) => name.split(" ").slice(0, 2).join(" ");
const enc = encodeURIComponent;

/**
 * A case of the mix: `body` makes it a POST of that JSON; `free` sends no payment; `mcp` sends the same query as
 * a `tools/call` to POST /mcp (paid with a dev token for `endpoint`, the REST twin), beside the REST row.
 */
type Case = {
  endpoint: string;
  label: string;
  path: () => string;
  body?: unknown;
  free?: boolean;
  mcp?: { tool: string; args: () => Record<string, unknown> };
};
const SEARCH = "GET /v1/search";
const RENEWALS = "GET /v1/renewals";
const OPPORTUNITIES = "GET /v1/companies/:id/opportunities";
const RESEARCH = "POST /v1/research";
const cases: Case[] = [
  { endpoint: SEARCH, label: "no filter", path: () => "/v1/search" },
  // Same request at the largest page: its meta.total is the whole corpus (capped where totals are capped).
  { endpoint: SEARCH, label: "no filter, total capped", path: () => "/v1/search?size=100" },
  { endpoint: SEARCH, label: "common word", path: () => "/v1/search?q=servicio" },
  { endpoint: SEARCH, label: "common phrase", path: () => "/v1/search?q=mantenimiento%20de%20software" },
  { endpoint: SEARCH, label: "rare word", path: () => "/v1/search?q=ciberseguridad" },
  { endpoint: SEARCH, label: "no match", path: () => "/v1/search?q=zzyzx" },
  {
    endpoint: SEARCH,
    label: `200-char q of common words (${longQuery.length} words, ${longQuery.join(" ").length} chars), every filter`,
    path: () =>
      `/v1/search?q=${enc(longQuery.join(" "))}&cpv=72&buyer=${enc(fragment(buyerName.name))}` +
      `&company=${enc(fragment(companyName.name))}&region=ES&from=2019-01-01&to=2026-12-31`,
  },
  { endpoint: SEARCH, label: "cpv 72", path: () => "/v1/search?cpv=72" },
  { endpoint: SEARCH, label: "cpv 48210000", path: () => "/v1/search?cpv=48210000" },
  {
    endpoint: SEARCH,
    label: "buyer fragment",
    path: () => `/v1/search?buyer=${enc(fragment(buyerName.name))}`,
  },
  {
    endpoint: SEARCH,
    label: "company fragment",
    path: () => `/v1/search?company=${enc(fragment(companyName.name))}`,
  },
  { endpoint: SEARCH, label: "tenders, region", path: () => "/v1/search?type=tender&region=ES3" },
  {
    endpoint: SEARCH,
    label: "contracts, dates",
    path: () => "/v1/search?type=contract&from=2023-01-01&to=2023-12-31",
  },
  { endpoint: SEARCH, label: "q + cpv + dates", path: () => "/v1/search?q=servicio&cpv=72&from=2022-01-01" },
  { endpoint: SEARCH, label: "deep page", path: () => "/v1/search?page=400&size=50" },
  {
    endpoint: SEARCH,
    label: "common word, deep page",
    path: () => "/v1/search?q=servicio&page=500&size=100",
  },
  // Rows 10,001-10,100: past the 10,000 newest matches a ranked search looks at (an empty page there).
  { endpoint: SEARCH, label: "q, page past 10,000", path: () => "/v1/search?q=servicio&size=100&page=101" },
  {
    endpoint: SEARCH,
    label: "tenders, company fragment",
    path: () => `/v1/search?type=tender&company=${enc(fragment(companyName.name))}`,
  },
  {
    endpoint: SEARCH,
    label: "contracts, word + region",
    path: () => "/v1/search?type=contract&q=suministro&region=ES",
  },
  // One search, a page picked at random on each call (what a client paging through results does).
  {
    endpoint: SEARCH,
    label: "common word, random pages",
    path: () => `/v1/search?q=servicio&page=${1 + (nextTender() % 200)}`,
  },
  {
    endpoint: SEARCH,
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
  { endpoint: RENEWALS, label: "no filter", path: () => "/v1/renewals" },
  { endpoint: RENEWALS, label: "cpv 72", path: () => "/v1/renewals?cpv=72" },
  {
    endpoint: RENEWALS,
    label: "cpv 48, min_confidence high",
    path: () => "/v1/renewals?cpv=48&min_confidence=high",
  },
  {
    endpoint: RENEWALS,
    label: "buyer fragment",
    path: () => `/v1/renewals?buyer=${enc(fragment(buyerName.name))}`,
  },
  { endpoint: RENEWALS, label: "window_months 3", path: () => "/v1/renewals?window_months=3" },
  { endpoint: RENEWALS, label: "window_months 36", path: () => "/v1/renewals?window_months=36" },
  { endpoint: RENEWALS, label: "include_retendered", path: () => "/v1/renewals?include_retendered=true" },
  { endpoint: RENEWALS, label: "page 5", path: () => "/v1/renewals?page=5" },
  {
    endpoint: OPPORTUNITIES,
    label: `biggest company (${companyAwards.big.toLocaleString("en")} awards)`,
    path: () => `/v1/companies/${bigCompany.id}/opportunities`,
  },
  {
    endpoint: OPPORTUNITIES,
    label: `median company (${medianCompany.awards.toLocaleString("en")} awards)`,
    path: () => `/v1/companies/${medianCompany.id}/opportunities`,
  },
  {
    endpoint: OPPORTUNITIES,
    label: `smallest company (${companyAwards.small.toLocaleString("en")} awards)`,
    path: () => `/v1/companies/${smallCompany.id}/opportunities`,
  },
  {
    endpoint: OPPORTUNITIES,
    label: "biggest company, page 2",
    path: () => `/v1/companies/${bigCompany.id}/opportunities?page=2`,
  },
  ...topics.map((topic, i) => ({
    endpoint: RESEARCH,
    label: `${["frequent", "frequent", "mid-frequency", "rare"][i]} topic "${topic}" (${matchesText(topic)}), limit 20`,
    path: () => "/v1/research",
    body: { query: topic, limit: 20 },
  })),
  {
    endpoint: RESEARCH,
    label: `frequent topic "ciberseguridad", limit 50`,
    path: () => "/v1/research",
    body: { query: "ciberseguridad", limit: 50 },
  },
  {
    endpoint: RESEARCH,
    label: `biggest buyer's name (${matchesText(buyerName.name)} by text), limit 20`,
    path: () => "/v1/research",
    body: { query: buyerName.name, limit: 20 },
  },
  { endpoint: "GET /v1/demo", label: "free", path: () => "/v1/demo", free: true },
];

// The same queries over MCP (tools/call, JSON responses), to read MCP's overhead as a ratio to the REST rows.
const MCP = "POST /mcp";
const mirrored: { endpoint: string; rest: string; tool: string; args: () => Record<string, unknown> }[] = [
  { endpoint: SEARCH, rest: "common word", tool: "search_tenders", args: () => ({ q: "servicio" }) },
  { endpoint: SEARCH, rest: "cpv 72", tool: "search_tenders", args: () => ({ cpv: "72" }) },
  {
    endpoint: "GET /v1/tenders/:id",
    rest: "random ids",
    tool: "get_tender",
    args: () => ({ id: nextTender() }),
  },
  {
    endpoint: "GET /v1/companies/:id",
    rest: "big company",
    tool: "get_company",
    args: () => ({ id: bigCompany.id }),
  },
  { endpoint: RENEWALS, rest: "no filter", tool: "get_renewals", args: () => ({}) },
];
for (const m of mirrored) {
  const twin = cases.find((c) => c.endpoint === m.endpoint && c.label === m.rest);
  if (twin) {
    cases.push({
      endpoint: MCP,
      label: `${m.tool} (REST twin: ${twin.endpoint} "${m.rest}")`,
      path: () => "/mcp",
      mcp: { tool: m.tool, args: m.args },
      // The dev token is asked for the REST twin's endpoint: an MCP call is paid as its twin.
      free: false,
      body: twin.endpoint,
    });
  }
}

interface Call {
  ms: number;
  status: number;
  body: ArrayBuffer;
}

/**
 * One call: a dev token for a paid endpoint (not timed), then the request (a POST of `body` as JSON when given),
 * timed until its body is read.
 */
async function devTokenFor(endpoint: string): Promise<string> {
  const faucet = await fetch(`${base}/v1/dev-faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ endpoint }),
  });
  return ((await faucet.json()) as { token: string }).token;
}

/** One MCP tools/call, paid with a dev token for the REST twin (not timed), timed until its body is read. */
async function callMcp(twin: string, tool: string, args: Record<string, unknown>): Promise<Call> {
  const token = await devTokenFor(twin);
  const started = performance.now();
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: tool, arguments: { ...args, payment_token: token } },
    }),
  });
  const received = await res.arrayBuffer();
  // A tool's answer is {result: {structuredContent: {data, meta}}}: report it like a REST body.
  let body = received;
  try {
    const rpc = JSON.parse(new TextDecoder().decode(received)) as {
      result?: { structuredContent?: unknown; isError?: boolean };
    };
    const content = rpc.result?.structuredContent;
    body = new TextEncoder().encode(JSON.stringify(content ?? {})).buffer as ArrayBuffer;
    if (rpc.result?.isError || (content as { payment_required?: boolean } | undefined)?.payment_required) {
      return { ms: performance.now() - started, status: 0, body };
    }
  } catch {
    return { ms: performance.now() - started, status: 0, body };
  }
  return { ms: performance.now() - started, status: res.status, body };
}

async function call(endpoint: string, path: string, paid: boolean, body?: unknown): Promise<Call> {
  const headers: Record<string, string> = {};
  if (body !== undefined) {
    headers["content-type"] = "application/json";
  }
  if (paid) {
    headers["x-payment"] = await devTokenFor(endpoint);
  }
  const started = performance.now();
  const res = await fetch(
    `${base}${path}`,
    body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) },
  );
  const received = await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status, body: received };
}

/** What the reader needs to see about a response: meta.total and meta.total_exact (when sent), rows on the page. */
function describe(body: ArrayBuffer): Pick<CaseResult, "total" | "totalExact" | "rows"> {
  try {
    const json = JSON.parse(new TextDecoder().decode(body)) as {
      data?: unknown;
      meta?: { total?: unknown; total_exact?: unknown };
    };
    // An object of lists (renewals' signals, a research brief's findings): the items of all its lists.
    const lists =
      json.data && typeof json.data === "object" && !Array.isArray(json.data)
        ? Object.values(json.data).filter((v): v is unknown[] => Array.isArray(v))
        : [];
    return {
      total: typeof json.meta?.total === "number" ? json.meta.total : null,
      totalExact: typeof json.meta?.total_exact === "boolean" ? json.meta.total_exact : null,
      rows: Array.isArray(json.data)
        ? json.data.length
        : lists.length > 0
          ? lists.reduce((sum, l) => sum + l.length, 0)
          : null,
    };
  } catch {
    return { total: null, totalExact: null, rows: null };
  }
}

/**
 * The database floor: a fixed CPU loop inside the database, timed once per round in this process (no HTTP). The
 * `/health` floor is mostly Node and HTTP; on a shared machine the database's share of the CPU can slow down while
 * it does not (2x on 2026-11-26), and this floor shows it.
 */
const DB_FLOOR_SQL = "SELECT count(*) FROM generate_series(1, 200000)";

async function timeDbFloor(): Promise<number> {
  const started = performance.now();
  await db.query(DB_FLOOR_SQL);
  return performance.now() - started;
}

/** One measured call of a case. */
function callOnce(c: Case, paid: boolean): Promise<Call> {
  return c.mcp
    ? callMcp(String(c.body), c.mcp.tool, c.mcp.args())
    : call(c.endpoint, c.path(), paid && !c.free, c.body);
}

interface Tally {
  c: Case;
  paid: boolean;
  first: number;
  ms: number[];
  last?: Call;
}

function caseResult({ c, first, ms, last }: Tally): CaseResult {
  return {
    endpoint: c.endpoint,
    label: c.label,
    first,
    ms,
    status: last?.status ?? 0,
    ...(last ? describe(last.body) : { total: null, totalExact: null, rows: null }),
  };
}

/**
 * Each query once ("first call": nothing cached by the service), the floor first, then `times` rounds of every
 * query once, the floor's calls spread over the same rounds. A shared machine's speed drifts over minutes (a
 * PostgreSQL CPU loop measured 556 and 1,017 ms within two minutes): with each query's calls in one block, each
 * query and the floor got their own moment of it, so their ratios compared moments, not queries. In rounds,
 * every query and the floor sample the whole run alike.
 */
async function measureInRounds(
  floor: Case,
  floorTimes: number,
  queries: readonly Case[],
  times: number,
): Promise<{ floor: CaseResult; queries: CaseResult[]; dbFloor: number[] }> {
  const floorTally: Tally = { c: floor, paid: false, first: 0, ms: [] };
  const tallies: Tally[] = queries.map((c) => ({ c, paid: true, first: 0, ms: [] }));
  for (const t of [floorTally, ...tallies]) {
    t.last = await callOnce(t.c, t.paid);
    t.first = t.last.ms;
  }
  const floorPerRound = Math.ceil(floorTimes / times);
  const dbFloor: number[] = [];
  for (let round = 0; round < times; round++) {
    dbFloor.push(await timeDbFloor());
    for (let i = 0; i < floorPerRound && floorTally.ms.length < floorTimes; i++) {
      floorTally.last = await callOnce(floor, false);
      floorTally.ms.push(floorTally.last.ms);
    }
    for (const t of tallies) {
      t.last = await callOnce(t.c, t.paid);
      t.ms.push(t.last.ms);
    }
  }
  return { floor: caseResult(floorTally), queries: tallies.map(caseResult), dbFloor };
}

// The floor: a free call through the same stack (more samples than the mix: it is cheap and every ratio uses it).
const measured = await measureInRounds(
  { endpoint: "GET /health", label: "floor", path: () => "/health" },
  Math.max(repeats, 100),
  cases.filter((c) => served.has(c.endpoint) || c.free || c.mcp),
  repeats,
);
const health = measured.floor;
const dbFloor = measured.dbFloor;
const results: CaseResult[] = measured.queries;
await collect();
const afterMix = reading();

const searchCases = cases.filter((c) => c.endpoint === SEARCH && served.has(c.endpoint));
/** Cycles through the search mix, one call at a time, until `done(calls made)` (checked between calls). */
async function loop(done: (calls: number) => boolean): Promise<WindowResult> {
  const started = performance.now();
  // How long the thread that serves (and, on PGlite, ingests) was busy without letting the event loop turn.
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const ms: number[] = [];
  const labels: string[] = [];
  const floor: number[] = [];
  let errors = 0;
  // With a pause, a call is timed from when it was due, not from when this process got round to sending it: the
  // client shares the thread with the server, so a call due while the thread is busy (an ingest transaction runs
  // in one go) would otherwise leave out the very wait a remote client would see.
  let late = 0;
  const spans: [number, number][] = [];
  for (let i = 0; !done(i); i++) {
    if (i % searchCases.length === 0) {
      floor.push(await timeDbFloor());
    }
    const c = searchCases[i % searchCases.length] as Case;
    const result = await call(c.endpoint, c.path(), true);
    const answered = performance.now();
    spans.push([answered - result.ms - late, answered]);
    ms.push(result.ms + late);
    labels.push(c.label);
    if (result.status !== 200) {
      errors += 1;
    }
    if (thinkMs > 0) {
      const due = performance.now() + thinkMs;
      await delay(thinkMs);
      late = performance.now() - due;
    }
  }
  lag.disable();
  const loopDelay = { p50: lag.percentile(50) / 1e6, p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 };
  return {
    seconds: (performance.now() - started) / 1000,
    ms,
    labels,
    errors,
    dbFloor: floor,
    spans,
    loopDelay,
  };
}

/** The intervals that overlap [from, to]. */
const within = (intervals: [number, number][], from: number, to: number) =>
  intervals.filter(([start, end]) => end >= from && start <= to);
const overlapsAny = (intervals: [number, number][], span: [number, number]) =>
  intervals.some(([start, end]) => start < span[1] && end > span[0]);

/**
 * What the ingest's holds of the embedded engine did to the searches of a window: how many it held and for how long,
 * and the searches that overlapped none of them; with this process's GC pauses in the window (null on PostgreSQL,
 * where nothing is recorded).
 */
function holdsDuring(
  window: WindowResult,
  from: number,
  to: number,
  before: WindowResult,
): IngestHolds | null {
  if (engine !== "pglite") {
    return null;
  }
  const inWindow = within(holds, from, to);
  const pauses = within(gcPauses, from, to);
  const clearOfHolds = window.spans.map((span) => !overlapsAny(inWindow, span));
  const clearOfGc = window.spans.map((span) => !overlapsAny(pauses, span));
  const beforePauses = within(gcPauses, before.spans[0]?.[0] ?? 0, before.spans.at(-1)?.[1] ?? 0);
  const clearMs = window.ms.filter((_, i) => clearOfHolds[i]);
  return {
    count: inWindow.length,
    ms: inWindow.map(([start, end]) => end - start),
    searchesOverlapping: window.ms.length - clearMs.length,
    clearMs,
    gcMs: pauses.map(([start, end]) => end - start),
    gcBeforeMs: beforePauses.map(([start, end]) => end - start),
    clearOfGcMs: window.ms.filter((_, i) => clearOfHolds[i] && clearOfGc[i]),
    beforeClearOfGcMs: before.ms.filter((_, i) => !overlapsAny(beforePauses, before.spans[i] ?? [0, 0])),
  };
}

async function aroundIngest(dir: string): Promise<AroundIngest> {
  const before = await counts();
  const steady = performance.now();
  // Whole passes over the mix (at least one), so that the baseline weighs every query alike even when searches
  // are slow and a window holds only a few passes.
  const beforeWindow = await loop(
    (calls) => calls > 0 && calls % searchCases.length === 0 && performance.now() - steady >= windowMs,
  );

  let peak = reading();
  const sampler = setInterval(() => {
    const r = reading();
    peak = {
      rssMb: Math.max(peak.rssMb, r.rssMb),
      heapUsedMb: Math.max(peak.heapUsedMb, r.heapUsedMb),
      externalMb: Math.max(peak.externalMb, r.externalMb),
    };
  }, 100);
  let finished = false;
  const ingestStarted = performance.now();
  const ingest: Promise<IngestOutcome> = (
    engine === "postgres" && pgIngest === "own-process"
      ? runWorker<IngestOutcome>("bench/workers/ingest-placsp.ts", {
          DATABASE_URL: process.env.DATABASE_URL ?? "",
          DATA_DIR: "",
          BENCH_CORPUS_DIR: dir,
        })
      : engine === "postgres" && pgIngest === "thread"
        ? ingestOnThread(process.env.DATABASE_URL ?? "", dir)
        : ingestCorpus(lanes.background, dir, log, { parseThread: parse === "thread" }).then((outcome) => ({
            ...outcome,
            peakRssMb: null,
          }))
  ).finally(() => {
    finished = true;
  });
  const [duringWindow, outcome] = await Promise.all([loop(() => finished), ingest]);
  clearInterval(sampler);
  const ended = performance.now();
  const ingestHolds = holdsDuring(duringWindow, ingestStarted, ended, beforeWindow);
  const afterWindow = await loop(() => performance.now() - ended >= windowMs);
  const after = await counts();
  if (outcome.entriesNew === 0 || after.tenders <= before.tenders) {
    throw new Error(
      `the ingest during the search loop added nothing new (entries_new ${outcome.entriesNew}, tenders ${before.tenders} -> ${after.tenders}): it would measure nothing`,
    );
  }
  return {
    windows: { before: beforeWindow, during: duringWindow, after: afterWindow },
    ingest: { ...outcome, processSeconds: (ended - ingestStarted) / 1000 },
    tenders: { before: before.tenders, after: after.tenders },
    awards: { before: before.awards, after: after.awards },
    peakDuringIngest: peak,
    holds: ingestHolds,
  };
}

const newCorpus = process.env.BENCH_NEW_CORPUS_DIR ?? "";
const around = newCorpus && searchCases.length > 0 ? await aroundIngest(newCorpus) : null;

/** The ingest on a thread of this process with its own pool, as the server leading it runs it on PostgreSQL. */
function ingestOnThread(databaseUrl: string, dir: string): Promise<IngestOutcome> {
  const worker = startModuleWorker(import.meta.url, "ingest-thread", { databaseUrl, dir });
  return new Promise((resolve, reject) => {
    worker.once("message", (outcome: Omit<IngestOutcome, "peakRssMb">) =>
      resolve({ ...outcome, peakRssMb: null }),
    );
    worker.once("error", reject);
    worker.once("exit", (code) =>
      reject(new Error(`the ingest thread exited (code ${code}) without an outcome`)),
    );
  });
}

/** Rows and bytes of a table and of each of its indexes; null when the table does not exist. */
async function tableSize(name: "search_rows" | "renewal_signals"): Promise<TableSize | null> {
  const exists = await one<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [name]);
  if (!exists.present) {
    return null;
  }
  // The name is one of two literals (typed above), never input: safe to place in the statement.
  const table = await one<{ total: string; heap: string; rows: string }>(
    `SELECT pg_total_relation_size('${name}')::text AS total, pg_relation_size('${name}')::text AS heap,
            (SELECT count(*) FROM ${name})::text AS rows`,
  );
  const indexes = (
    await db.query<{ name: string; bytes: string }>(
      `SELECT indexname AS name, pg_relation_size(format('%I.%I', schemaname, indexname)::regclass)::text AS bytes
         FROM pg_indexes WHERE tablename = $1 ORDER BY 2::bigint DESC, 1`,
      [name],
    )
  ).rows;
  return {
    rows: Number(table.rows),
    totalBytes: Number(table.total),
    heapBytes: Number(table.heap),
    indexes: indexes.map((i) => ({ name: i.name, bytes: Number(i.bytes) })),
  };
}
let renewalSignals: TableSize | null = null;
try {
  renewalSignals = await tableSize("renewal_signals");
} catch {
  renewalSignals = null;
}
let searchRows: TableSize | null = null;
try {
  searchRows = await tableSize("search_rows");
} catch {
  searchRows = null;
}

server.close();
await db.close();
const output: WorkerOutput = {
  engine,
  lanes: lanesOn,
  parse,
  pgIngest,
  thinkMs,
  corpus: { ...corpusCounts, text },
  health,
  dbFloor,
  results,
  around,
  memory: { afterLoad, afterMix, peakDuringIngest: around?.peakDuringIngest ?? null, gc: gc !== undefined },
  searchRows,
  renewalSignals,
  picks: [
    `API clock ${clock.toISOString()} (the day after the newest publication)`,
    `biggest company ${bigCompany.id} (${companyAwards.big} awards), median company ${medianCompany.id} (${medianCompany.awards}), smallest company ${smallCompany.id} (${companyAwards.small}); biggest buyer ${bigBuyer.id} "${buyerName.name}" (buyer fragment "${fragment(buyerName.name)}")`,
  ],
};
process.stdout.write(`${JSON.stringify(output)}\n`);
