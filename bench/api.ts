import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { refreshStats } from "../src/analytics/refresh-stats.ts";
import { openDb } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";
import { createLogger } from "../src/lib/logger.ts";
import { amplify } from "./amplify.ts";
import { BENCH_PG_URL, freshPgDatabase, machineLine, markdownTable, REPO_ROOT, runWorker } from "./lib.ts";

/**
 * `npm run bench -- api [--engines postgres,pglite] [--awards-postgres 1000000] [--awards-pglite 100000]
 *  [--reuse yes] [--repeats 30] [--search-index on,off]`
 * Loads the synthetic corpus (50,000 feed entries through the real ingestion pipeline, then replicated up to
 * the target number of awards), refreshes the aggregates, and times a fixed query mix per endpoint over HTTP.
 * `--reuse yes` keeps a PostgreSQL benchmark database between runs (dropped otherwise).
 */
interface CaseResult {
  endpoint: string;
  label: string;
  first: number;
  ms: number[];
  status: number;
}

interface WorkerOutput {
  results: CaseResult[];
  indexBuild: {
    seconds: number;
    longestStallMs: number;
    rssGrowthMb: number;
    heapGrowthMb: number;
    stats: Record<string, number> | null;
    verified: number;
  } | null;
}

const BASE_ENTRIES = 50_000;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

async function pgDatabaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  await admin.end();
  return (rowCount ?? 0) > 0;
}

async function load(env: Record<string, string>, awards: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pi-bench-api-corpus-"));
  try {
    await writeSyntheticFeed(dir, { entries: BASE_ENTRIES, seed: 643 });
    const ingest = await runWorker<{ seconds: number; awards: number }>("bench/workers/ingest-placsp.ts", {
      ...env,
      BENCH_CORPUS_DIR: dir,
    });
    process.stdout.write(
      `ingested ${BASE_ENTRIES} entries (${ingest.awards} awards) in ${ingest.seconds.toFixed(0)} s\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const db = await openDb({
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? "",
    poolSize: 2,
  });
  try {
    await amplify(db, awards, (line) => process.stdout.write(`${line}\n`));
  } finally {
    await db.close();
  }
}

/** Brings a (possibly reused) benchmark database to the current schema and recomputes every aggregate. */
async function prepare(env: Record<string, string>): Promise<void> {
  const db = await openDb({
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? "",
    poolSize: 2,
  });
  try {
    await migrate(db);
    const started = performance.now();
    await refreshStats({ db, log: createLogger("warn"), full: true });
    process.stdout.write(
      `aggregates fully refreshed in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    await db.exec("ANALYZE");
  } finally {
    await db.close();
  }
}

function formatSection(title: string, { results, indexBuild }: WorkerOutput): string {
  const rows = results.map((r) => {
    const sorted = [...r.ms].sort((a, b) => a - b);
    return [
      r.endpoint,
      r.label,
      r.status,
      r.first.toFixed(1),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 95).toFixed(1),
      percentile(sorted, 99).toFixed(1),
    ];
  });
  const byEndpoint = new Map<string, { ms: number[]; first: number[] }>();
  for (const r of results) {
    const entry = byEndpoint.get(r.endpoint) ?? { ms: [], first: [] };
    entry.ms.push(...r.ms);
    entry.first.push(r.first);
    byEndpoint.set(r.endpoint, entry);
  }
  const summary = [...byEndpoint].map(([endpoint, { ms, first }]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const firsts = [...first].sort((a, b) => a - b);
    return [
      endpoint,
      sorted.length,
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 95).toFixed(1),
      percentile(sorted, 99).toFixed(1),
      percentile(firsts, 50).toFixed(1),
      (firsts.at(-1) ?? Number.NaN).toFixed(1),
    ];
  });
  return [
    `## ${title}`,
    "",
    ...(indexBuild
      ? [
          `Search index built in ${indexBuild.seconds.toFixed(1)} s (the longest stretch it held the event loop: ${indexBuild.longestStallMs.toFixed(0)} ms); after a full GC the process holds ${indexBuild.heapGrowthMb.toFixed(0)} MB more heap and array buffers (RSS +${indexBuild.rssGrowthMb.toFixed(0)} MB). Index: ${JSON.stringify(indexBuild.stats)}. Before timing, ${indexBuild.verified} searches of the mix were answered by the index exactly as by SQL (rows, order, total).`,
          "",
        ]
      : []),
    markdownTable(
      ["endpoint", "calls", "p50 ms", "p95 ms", "p99 ms", "first calls p50 ms", "first calls max ms"],
      summary,
    ),
    "",
    markdownTable(["endpoint", "query", "status", "first call ms", "p50 ms", "p95 ms", "p99 ms"], rows),
  ].join("\n");
}

export async function benchApi(args: Map<string, string>): Promise<void> {
  const engines = (args.get("engines") ?? "postgres,pglite").split(",");
  const reuse = args.get("reuse") === "yes";
  const sections: string[] = [];
  for (const engine of engines) {
    const awards = Number(args.get(`awards-${engine}`) ?? (engine === "postgres" ? 1_000_000 : 100_000));
    let env: Record<string, string>;
    let cleanup = async () => {};
    if (engine === "postgres") {
      const name = `pi_bench_api_${awards}`;
      if (reuse && (await pgDatabaseExists(name))) {
        const url = new URL(BENCH_PG_URL);
        url.pathname = `/${name}`;
        env = { DATABASE_URL: url.toString(), DATA_DIR: "" };
      } else {
        const database = await freshPgDatabase(name);
        env = { DATABASE_URL: database.url, DATA_DIR: "" };
        await load(env, awards);
        if (!reuse) {
          cleanup = () => database.drop();
        }
      }
    } else {
      const dataDir = await mkdtemp(join(tmpdir(), "pi-bench-api-pglite-"));
      env = { DATA_DIR: dataDir, DATABASE_URL: "" };
      await load(env, awards);
      cleanup = () => rm(dataDir, { recursive: true, force: true });
    }
    try {
      await prepare(env);
      // `--search-index on,off` measures both engines of search on the same database.
      for (const searchIndex of (args.get("search-index") ?? "on").split(",")) {
        const measured = await runWorker<WorkerOutput>("bench/workers/api-queries.ts", {
          ...env,
          BENCH_REPEATS: args.get("repeats") ?? "30",
          BENCH_SEARCH_INDEX: searchIndex,
        });
        const section = formatSection(
          `${engine}, ${awards.toLocaleString("en")} awards, search index ${searchIndex}`,
          measured,
        );
        sections.push(section);
        process.stdout.write(`\n${section}\n`);
      }
    } finally {
      await cleanup();
    }
  }
  const report = `# api\n\n${machineLine()}; each query once ("first call": nothing cached by the service) then ${args.get("repeats") ?? "30"} times, one at a time over HTTP on 127.0.0.1, paid with dev tokens.\n\n${sections.join("\n\n")}\n`;
  await writeFile(join(REPO_ROOT, "bench/results/api.md"), report);
}
