import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openDb } from "../src/db/client.ts";
import { addToAccount, ensureAccount, insertLedgerEntry } from "../src/db/queries/credits.ts";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";
import { clientKeyHash } from "../src/payments/credits/client-key.ts";
import { BENCH_PG_URL, freshPgDatabase, REPO_ROOT, runWorker } from "./lib.ts";
import {
  type LoadCase,
  type LoadKeys,
  type LoadRequest,
  loadCases,
  loadKeyNames,
  runLoad,
} from "./load-cases.ts";
import {
  type CaseMeasurement,
  type CorpusFacts,
  type EngineSection,
  formatLoadReport,
  NOTES_MARKER,
  type ReplicaPoint,
} from "./load-report.ts";
import { cpuSeconds, machineCpu, type Replica, rssMb, startReplicas, stopReplica } from "./load-servers.ts";

/**
 * `npm run bench -- load [--engines postgres,pglite] [--entries 20000] [--connections 50] [--seconds 20]
 *  [--warmup-seconds 3] [--replicas 1,2,3] [--pg-database pi_bench_load] [--keep no] [--build yes]`
 *
 * Throughput under concurrency (bench/results/load.md), where `npm run bench -- api` measures latency one call
 * at a time. Builds the service (`npm run build`), writes the synthetic base corpus (`--entries` feed entries,
 * seed 643) and ingests it through the real pipeline into a fresh PostgreSQL database and a fresh PGlite
 * directory, funds one prepaid key per paid route, then, per engine, starts the production entry point
 * (`node dist/main.js`) and drives each route with autocannon (`--connections` keep-alive connections for
 * `--seconds`, after `--warmup-seconds` not counted): GET /health (the floor every figure is divided by),
 * GET /v1/pricing, paid GET /v1/search and GET /v1/tenders/:id, and a paid POST /mcp tools/call. On PostgreSQL
 * it then starts 1, 2 and 3 replicas on the one database and spreads the same connections over them. Besides
 * requests/s and latency it reads, from /proc, the CPU the servers, the PostgreSQL backends serving them and the
 * load generator used, so the report can say what a request costs each tier. `--keep yes` leaves the PostgreSQL
 * database in place for inspection (the next run drops and reloads it); `--build no` serves the dist/ there is.
 */

/** Cents on each benchmark key: far more than a run can spend (even one key taking every call of ~5,000 req/s). */
const FUND_CENTS = 50_000_000;
const SEED = 643;
/** Routes measured on 1, 2, 3 replicas: the floor (the API's own work) and the paid search (the database's). */
const REPLICA_ROUTES = ["GET /health", "GET /v1/search"];

interface Options {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

export async function benchLoad(args: Map<string, string>): Promise<void> {
  const engines = (args.get("engines") ?? "postgres,pglite").split(",");
  const entries = Number(args.get("entries") ?? "20000");
  const options: Options = {
    connections: Number(args.get("connections") ?? "50"),
    seconds: Number(args.get("seconds") ?? "20"),
    warmupSeconds: Number(args.get("warmup-seconds") ?? "3"),
  };
  const replicaCounts = (args.get("replicas") ?? "1,2,3").split(",").map(Number);
  const pgName = args.get("pg-database") ?? "pi_bench_load";
  const keep = args.get("keep") === "yes";
  const started = performance.now();
  const loadBefore = loadavg();
  if (args.get("build") !== "no") {
    await buildService();
  }
  const work = await mkdtemp(join(tmpdir(), "pi-bench-load-"));
  const sections: EngineSection[] = [];
  try {
    const corpusDir = join(work, "corpus");
    const written = await writeSyntheticFeed(corpusDir, { entries, seed: SEED });
    progress(`wrote ${entries} synthetic entries (${(written.bytes / 1e6).toFixed(0)} MB of feed pages)`);
    for (const engine of engines) {
      sections.push(await benchEngine(engine, { work, corpusDir, pgName, keep, options, replicaCounts }));
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const path = join(REPO_ROOT, "bench/results/load.md");
  const previous = await readFile(path, "utf8").catch(() => "");
  const notes = previous.includes(NOTES_MARKER) ? previous.slice(previous.indexOf(NOTES_MARKER)) : "";
  const report = formatLoadReport({
    entries,
    seed: SEED,
    options,
    sections,
    load: { before: loadBefore, after: loadavg() },
    minutes: (performance.now() - started) / 60_000,
  });
  await writeFile(path, `${report}${notes ? `\n${notes}` : ""}`);
  progress(`wrote bench/results/load.md in ${((performance.now() - started) / 60_000).toFixed(1)} min`);
}

function progress(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function buildService(): Promise<void> {
  const child = spawn("npm", ["run", "build"], { cwd: REPO_ROOT, stdio: ["ignore", "inherit", "inherit"] });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) {
    throw new Error(`npm run build exited with ${code}`);
  }
}

async function benchEngine(
  engine: string,
  run: {
    work: string;
    corpusDir: string;
    pgName: string;
    keep: boolean;
    options: Options;
    replicaCounts: number[];
  },
): Promise<EngineSection> {
  const loadBefore = loadavg();
  let env: Record<string, string>;
  let drop = async () => {};
  if (engine === "postgres") {
    const database = await freshPgDatabase(run.pgName);
    env = { DATABASE_URL: database.url };
    drop = run.keep
      ? async () => progress(`kept ${database.url} (dropped by the next run)`)
      : () => database.drop();
  } else if (engine === "pglite") {
    env = { DATA_DIR: join(run.work, "pglite") };
  } else {
    throw new Error(`unknown engine ${engine}: use postgres or pglite`);
  }
  try {
    const ingest = await runWorker<{ seconds: number; tenders: number; awards: number }>(
      "bench/workers/ingest-placsp.ts",
      { DATABASE_URL: env.DATABASE_URL ?? "", DATA_DIR: env.DATA_DIR ?? "", BENCH_CORPUS_DIR: run.corpusDir },
    );
    progress(
      `${engine}: ingested ${ingest.tenders} tenders, ${ingest.awards} awards in ${ingest.seconds.toFixed(0)} s`,
    );
    const { corpus, tenderIds, keys } = await prepareDatabase(env, engine, run.options.connections);
    const cases = loadCases({ tenderIds, keys });
    const importDir = join(run.work, `import-${engine}`);
    await mkdir(importDir, { recursive: true });
    const serverEnv = { ...env, ...SERVER_ENV, IMPORT_DIR: importDir };
    const pgAdmin = engine === "postgres" ? new pg.Client({ connectionString: BENCH_PG_URL }) : null;
    await pgAdmin?.connect();
    try {
      const backends = async () => {
        if (!pgAdmin) {
          return [];
        }
        const { rows } = await pgAdmin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1",
          [run.pgName],
        );
        return rows.map((r) => r.pid);
      };
      const single = await startReplicas(1, serverEnv, run.work, `${engine}-single`);
      const measurements: CaseMeasurement[] = [];
      let memory: { rss: number; peak: number };
      try {
        await preflight(cases, single);
        for (const loadCase of cases) {
          measurements.push(await measure(loadCase, single, backends, run.options));
          progress(`${engine}: ${describe(measurements.at(-1))}`);
        }
        memory = rssMb(single[0]?.pid ?? 0);
      } finally {
        await Promise.all(single.map(stopReplica));
      }
      const replicas: ReplicaPoint[] = [];
      if (engine === "postgres" && run.replicaCounts.length > 0) {
        replicas.push(...(await measureReplicas(cases, serverEnv, run, backends)));
      }
      return {
        engine,
        corpus,
        measurements,
        replicas,
        memory,
        load: { before: loadBefore, after: loadavg() },
      };
    } finally {
      await pgAdmin?.end();
    }
  } finally {
    await drop();
  }
}

/**
 * Starts the most replicas asked for once and measures each replica route on the first 1, 2, 3 of them (idle
 * replicas cost nothing), in the order 1, 2, 3 and then 3, 2, 1: each count is measured once early and once
 * late, so a load that drifts during the section (the machine is shared) weighs on every count alike.
 */
async function measureReplicas(
  cases: LoadCase[],
  serverEnv: Record<string, string>,
  run: { work: string; options: Options; replicaCounts: number[] },
  backends: () => Promise<number[]>,
): Promise<ReplicaPoint[]> {
  const fleet = await startReplicas(Math.max(...run.replicaCounts), serverEnv, run.work, "postgres-fleet");
  const points: ReplicaPoint[] = [];
  try {
    const order = [...run.replicaCounts, ...[...run.replicaCounts].reverse()];
    for (const loadCase of cases.filter((c) => REPLICA_ROUTES.includes(c.route))) {
      for (const count of order) {
        const active = fleet.slice(0, count);
        const measured = await measure(loadCase, active, backends, run.options);
        points.push({ replicas: count, ...measured, rss: active.map((r) => rssMb(r.pid)) });
        progress(`postgres × ${count}: ${describe(measured)}`);
      }
    }
  } finally {
    await Promise.all(fleet.map(stopReplica));
  }
  return points;
}

/** The environment of every benchmark server (besides the database). */
const SERVER_ENV: Record<string, string> = {
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  PAYMENTS_MODE: "dev",
  // One key sends thousands of calls a second here; the per-client limiter (5/s by default) would measure itself.
  RATE_LIMIT_PER_MINUTE: "0",
  INGEST_SCHEDULE: "off",
  IMPORT_SCHEDULE: "off",
  RETENTION_SCHEDULE: "off",
};

/**
 * Analyses the ingested database as autovacuum would, picks the tender ids the tender route cycles through,
 * funds one key per paid route and counts what the corpus holds.
 */
async function prepareDatabase(
  env: Record<string, string>,
  engine: string,
  clients: number,
): Promise<{ corpus: CorpusFacts; tenderIds: number[]; keys: LoadKeys }> {
  const db = await openDb({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? "", poolSize: 2 });
  try {
    await db.exec(engine === "postgres" ? "VACUUM ANALYZE" : "ANALYZE");
    const { rows: ids } = await db.query<{ id: number }>(
      "SELECT id FROM tenders ORDER BY md5(id::text) LIMIT 1000",
    );
    const keys = loadKeyNames(clients);
    const at = new Date();
    for (const key of [...keys.search, ...keys.tender, keys.tenderSingle, ...keys.mcp]) {
      await db.transaction(async (tx) => {
        const account = await ensureAccount(tx, clientKeyHash(key), at);
        const change = await addToAccount(tx, {
          accountId: account.id,
          cents: FUND_CENTS,
          trialCalls: 0,
          at,
        });
        await insertLedgerEntry(tx, {
          accountId: account.id,
          deltaCents: FUND_CENTS,
          deltaTrialCalls: 0,
          balanceAfterCents: change.balanceCents,
          reason: "purchase",
          endpoint: null,
          reference: "bench-load",
          at,
        });
      });
    }
    const { rows } = await db.query<CorpusFacts>(
      `SELECT (SELECT count(*) FROM tenders)::int AS tenders, (SELECT count(*) FROM awards)::int AS awards,
              (SELECT count(*) FROM search_rows)::int AS "searchRows",
              pg_database_size(current_database())::bigint AS "databaseBytes"`,
    );
    const corpus = rows[0];
    if (!corpus) {
      throw new Error("no corpus counts");
    }
    return { corpus, tenderIds: ids.map((r) => r.id), keys };
  } finally {
    await db.close();
  }
}

const ACCEPTED = (status: number) => status >= 200 && status < 300;

async function send(base: string, request: LoadRequest): Promise<Response> {
  return fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
}

/**
 * Sends each request of every case's mix once (a full cycle) and refuses to measure a mix that is not served
 * as intended: a non-2xx, or an MCP call answered with a tool error or without payment.
 */
async function preflight(cases: LoadCase[], replicas: Replica[]): Promise<void> {
  const base = `http://127.0.0.1:${replicas[0]?.port}`;
  for (const loadCase of cases) {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const request = loadCase.next();
      const id = `${request.path} ${request.body?.replace(/"id":\d+/, "") ?? ""}`;
      if (seen.has(id)) {
        break;
      }
      seen.add(id);
      const response = await send(base, request);
      const text = await response.text();
      if (!ACCEPTED(response.status)) {
        throw new Error(
          `${loadCase.route}: ${request.path} answered ${response.status}: ${text.slice(0, 300)}`,
        );
      }
      if (loadCase.route.startsWith("POST /mcp")) {
        const result = (JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: unknown } })
          .result;
        const meta = (result?.structuredContent as { meta?: { paid?: boolean } } | undefined)?.meta;
        if (!result || result.isError || meta?.paid !== true) {
          throw new Error(`${loadCase.route}: ${request.body} was not a paid answer: ${text.slice(0, 300)}`);
        }
      }
    }
  }
}

/** The balances of funded keys, read through the API (free), in cents, summed. */
async function balanceCents(base: string, keys: readonly string[]): Promise<number> {
  let total = 0;
  for (const key of keys) {
    const response = await fetch(`${base}/v1/billing`, { headers: { "x-client-key": key } });
    const body = (await response.json()) as { data: { balance_cents: number } };
    total += body.data.balance_cents;
  }
  return total;
}

/** Sums the CPU seconds of processes, counting only what they used after `since` (a reading per pid). */
function cpuSince(pids: readonly number[], since: ReadonlyMap<number, number>): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid) - (since.get(pid) ?? 0), 0);
}

function readings(pids: readonly number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

/** Requests cut off when a run ended may still be finishing on the server: lets them land before a reading. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1000));
}

/** Warms up (not counted), then measures one case, with the CPU each tier used during the measured run. */
async function measure(
  loadCase: LoadCase,
  replicas: Replica[],
  backends: () => Promise<number[]>,
  options: Options,
): Promise<CaseMeasurement> {
  const bases = replicas.map((r) => `http://127.0.0.1:${r.port}`);
  const base = bases[0] ?? "";
  if (options.warmupSeconds > 0) {
    await runLoad(loadCase, bases, { connections: options.connections, seconds: options.warmupSeconds });
    await settle();
  }
  const paid = loadCase.keys.length > 0;
  const balanceBefore = paid ? await balanceCents(base, loadCase.keys) : 0;
  const apiPids = replicas.map((r) => r.pid);
  const apiBefore = readings(apiPids);
  const pgBefore = readings(await backends());
  const benchBefore = process.cpuUsage();
  const machineBefore = machineCpu();
  const result = await runLoad(loadCase, bases, {
    connections: options.connections,
    seconds: options.seconds,
  });
  const machineAfter = machineCpu();
  const bench = process.cpuUsage(benchBefore);
  const cpu = {
    api: cpuSince(apiPids, apiBefore),
    postgres: cpuSince(await backends(), pgBefore),
    generator: (bench.user + bench.system) / 1e6,
    machineBusy: machineAfter.busy - machineBefore.busy,
  };
  await settle();
  const debited = paid
    ? (balanceBefore - (await balanceCents(base, loadCase.keys))) / loadCase.priceCents
    : null;
  return { route: loadCase.route, mix: loadCase.mix, result, cpu, debited };
}

function describe(m: CaseMeasurement | undefined): string {
  if (!m) {
    return "";
  }
  const r = m.result;
  return `${m.route}: ${r.perSecond.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}; CPU s api ${m.cpu.api.toFixed(1)} pg ${m.cpu.postgres.toFixed(1)} generator ${m.cpu.generator.toFixed(1)} machine ${m.cpu.machineBusy.toFixed(1)}`;
}
