import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { refreshStats } from "../src/analytics/refresh-stats.ts";
import { recomputeSignals } from "../src/analytics/renewals/recompute.ts";
import { type Db, openDb } from "../src/db/client.ts";
import { DEFAULT_LANE_OPTIONS } from "../src/db/lanes.ts";
import { migrate } from "../src/db/migrate.ts";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";
import { createLogger } from "../src/lib/logger.ts";
import { amplify } from "./amplify.ts";
import type {
  AroundIngest,
  CaseResult,
  IngestHolds,
  MemoryReading,
  SignalsSummary,
  TableSize,
  WindowResult,
  WorkerOutput,
} from "./api-types.ts";
import {
  BENCH_PG_URL,
  benchNow,
  freshPgDatabase,
  machineLine,
  markdownTable,
  quantiles,
  REPO_ROOT,
  runWorker,
} from "./lib.ts";
import { highestSyntheticEntry, writeNewSyntheticEntries } from "./new-entries.ts";

/**
 * `npm run bench -- api [--engines postgres,pglite] [--awards-postgres 1000000] [--awards-pglite 100000]
 *  [--reuse yes] [--repeats 30] [--base-entries 50000] [--ingest-entries 10000] [--window-seconds 20]
 *  [--pg-database pi_bench_api_<awards>]`
 * Loads the synthetic corpus (`--base-entries` feed entries through the real ingestion pipeline, then replicated
 * up to the target number of awards), refreshes the aggregates, and, in one worker process per engine, times
 * GET /health (the floor every latency is also given as a multiple of), a fixed query mix per endpoint over
 * HTTP, then the search mix before, during and just after an ingest of `--ingest-entries` new entries
 * (0 skips it). `--reuse yes` keeps a PostgreSQL benchmark database between runs (dropped otherwise); each run
 * adds its ingested entries to it.
 */
const NEW_ENTRIES_SEED = 9643;
/** Later than the base corpus (which ends 2026-06-30): the ingested entries are the newest. */
const NEW_ENTRIES_NOW = new Date("2026-09-30T10:00:00.000Z");

async function pgDatabaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  await admin.end();
  return (rowCount ?? 0) > 0;
}

async function load(env: Record<string, string>, awards: number, baseEntries: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pi-bench-api-corpus-"));
  try {
    await writeSyntheticFeed(dir, { entries: baseEntries, seed: 643 });
    const ingest = await runWorker<{ seconds: number; awards: number }>("bench/workers/ingest-placsp.ts", {
      ...env,
      BENCH_CORPUS_DIR: dir,
    });
    process.stdout.write(
      `ingested ${baseEntries} entries (${ingest.awards} awards) in ${ingest.seconds.toFixed(0)} s\n`,
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

/** What a full recompute wrote, by signal type: enough for a reader to judge whether the corpus is realistic. */
async function summarizeSignals(db: Db, seconds: number, buyers: number): Promise<SignalsSummary> {
  // The API worker's "today" (benchNow: the day after the newest publication; 10:00 UTC is that day in Madrid).
  const today = (await benchNow(db)).toISOString().slice(0, 10);
  const { rows } = await db.query<{
    type: string;
    signals: number;
    buyers: number;
    retendered: number;
    open: number;
    open_next_12_months: number;
    high: number;
    medium: number;
    low: number;
    median_days: number | null;
  }>(
    `SELECT signal_type AS type, count(*)::int AS signals, count(DISTINCT buyer_id)::int AS buyers,
            count(*) FILTER (WHERE retendered_by IS NOT NULL)::int AS retendered,
            count(*) FILTER (WHERE retendered_by IS NULL AND window_end >= $1::date)::int AS open,
            count(*) FILTER (WHERE retendered_by IS NULL AND window_end >= $1::date
                               AND window_start <= ($1::date + interval '12 months')::date)::int AS open_next_12_months,
            count(*) FILTER (WHERE confidence = 'high')::int AS high,
            count(*) FILTER (WHERE confidence = 'medium')::int AS medium,
            count(*) FILTER (WHERE confidence = 'low')::int AS low,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY CASE WHEN signal_type = 'recurrence'
                                THEN (basis->>'median_interval_days')::numeric
                                ELSE window_end - window_start END) AS median_days
       FROM renewal_signals GROUP BY signal_type ORDER BY signal_type`,
    [today],
  );
  return {
    seconds,
    buyers,
    signals: rows.reduce((sum, r) => sum + r.signals, 0),
    today,
    byType: rows.map((r) => ({
      type: r.type,
      signals: r.signals,
      buyers: r.buyers,
      retendered: r.retendered,
      open: r.open,
      openNext12Months: r.open_next_12_months,
      high: r.high,
      medium: r.medium,
      low: r.low,
      medianDays: r.median_days === null ? null : Number(r.median_days),
    })),
  };
}

/**
 * Brings a (possibly reused) benchmark database to the current schema, recomputes every aggregate, then times
 * the full renewal-signal recompute (GET /v1/renewals, research and opportunities read its table); returns the
 * highest synthetic entry number stored, above which the entries ingested during the search loop go, and what
 * the recompute wrote.
 */
async function prepare(env: Record<string, string>): Promise<{ highest: number; signals: SignalsSummary }> {
  const db = await openDb({
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? "",
    poolSize: 2,
  });
  try {
    await migrate(db);
    let started = performance.now();
    await refreshStats({ db, log: createLogger("warn"), full: true });
    process.stdout.write(
      `aggregates fully refreshed in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    started = performance.now();
    // The same day the API worker answers for (the corpus's newest publication + 1): retention counts from it.
    const today = await benchNow(db);
    const recomputed = await recomputeSignals({
      db,
      log: createLogger("warn"),
      now: () => today,
      full: true,
    });
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `renewal signals fully recomputed in ${seconds.toFixed(1)} s (${recomputed.buyers} buyers, ${recomputed.signals} signals)\n`,
    );
    // The recompute replaced every row: vacuum as autovacuum would before the endpoints read the table.
    await db.exec("VACUUM renewal_signals");
    await db.exec("ANALYZE");
    const signals = await summarizeSignals(db, seconds, recomputed.buyers);
    return { highest: await highestSyntheticEntry(db), signals };
  } finally {
    await db.close();
  }
}

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "–");
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–");
/** The database floor's p50 and p95 (a dash without samples: a run of no rounds). */
function dbFloorText(ms: readonly number[]): string {
  if (ms.length === 0) {
    return "–";
  }
  const q = quantiles(ms);
  return `p50 ${f1(q.p50)} ms, p95 ${f1(q.p95)} ms`;
}

const ratio = (n: number, floor: number) =>
  Number.isFinite(n) && floor > 0 ? `${(n / floor).toFixed(1)}×` : "–";
const mbText = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function totalCell(r: CaseResult): string {
  if (r.total === null) {
    return "";
  }
  return r.totalExact === null
    ? r.total.toLocaleString("en")
    : `${r.total.toLocaleString("en")} (${r.totalExact ? "exact" : "capped"})`;
}

function memoryText(label: string, m: MemoryReading): string {
  return `${label} RSS ${m.rssMb.toFixed(0)} MB, heap ${m.heapUsedMb.toFixed(0)} MB, external + array buffers ${m.externalMb.toFixed(0)} MB`;
}

const loadText = (l: number[]) => l.map((n) => n.toFixed(2)).join(", ");

/**
 * Each query's p50 and p95 before, during and just after the ingest, and its during/before p50 ratio: which
 * queries a window's slowdown comes from.
 */
function perQueryAroundIngest(windows: AroundIngest["windows"]): string {
  const byLabel = (w: WindowResult, label: string) => w.ms.filter((_, i) => w.labels[i] === label);
  const labels = [...new Set(windows.before.labels)];
  return markdownTable(
    [
      "query",
      "calls before / during / after",
      "p50 before / during / after ms",
      "p95 before / during / after ms",
      "p50 during ÷ before",
    ],
    labels.map((label) => {
      const samples = [windows.before, windows.during, windows.after].map((w) => byLabel(w, label));
      const q = samples.map((sample) => quantiles(sample));
      return [
        label,
        samples.map((sample) => sample.length).join(" / "),
        q.map((x) => f1(x.p50)).join(" / "),
        q.map((x) => f1(x.p95)).join(" / "),
        // Two decimals: a window's slowdown is often a matter of 5-15 %.
        f2((q[1]?.p50 ?? Number.NaN) / (q[0]?.p50 ?? Number.NaN)),
      ];
    }),
  );
}

function loopDelayText(w: WindowResult): string {
  return `${f1(w.loopDelay.p50)} / ${f1(w.loopDelay.p99)} / ${f1(w.loopDelay.max)}`;
}

/** What the ingest's transactions and scripts did to the searches during it (PGlite). */
function holdsText(holds: IngestHolds, before: WindowResult): string {
  const held = quantiles(holds.ms);
  const clear = quantiles(holds.clearMs);
  const steady = quantiles(before.ms);
  const clearOfGc = quantiles(holds.clearOfGcMs);
  const beforeClearOfGc = quantiles(holds.beforeClearOfGcMs);
  const sum = (ms: number[]) => ms.reduce((a, b) => a + b, 0);
  return (
    `The ingest held the engine ${holds.count.toLocaleString("en")} times during its window (its transactions, from ` +
    `after BEGIN to the end of COMMIT, and its VACUUM / ANALYZE scripts): p50 ${f1(held.p50)} ms, p95 ${f1(held.p95)}, ` +
    `longest ${f1(Math.max(0, ...holds.ms))}. ${holds.searchesOverlapping.toLocaleString("en")} searches overlapped ` +
    `one of them; the ${holds.clearMs.length.toLocaleString("en")} others had p50 / p95 / p99 ${f1(clear.p50)} / ` +
    `${f1(clear.p95)} / ${f1(clear.p99)} ms (before the ingest: ${f1(steady.p50)} / ${f1(steady.p95)} / ` +
    `${f1(steady.p99)}): a search slower without overlapping a hold did not wait for the ingest's use of the engine. ` +
    `Garbage collection paused the API process ${holds.gcMs.length.toLocaleString("en")} times during the ingest ` +
    `(${f1(sum(holds.gcMs))} ms in all, longest ${f1(Math.max(0, ...holds.gcMs))}) against ` +
    `${holds.gcBeforeMs.length.toLocaleString("en")} (${f1(sum(holds.gcBeforeMs))} ms) before it; the ` +
    `${holds.clearOfGcMs.length.toLocaleString("en")} searches during it that overlapped neither a hold nor a pause had ` +
    `p50 / p95 ${f1(clearOfGc.p50)} / ${f1(clearOfGc.p95)} ms (before it, without a pause: ${f1(beforeClearOfGc.p50)} / ` +
    `${f1(beforeClearOfGc.p95)}).`
  );
}

function tableSizeText(name: string, t: TableSize): string {
  return `${name}: ${t.rows.toLocaleString("en")} rows, ${mbText(t.totalBytes)} in all (table ${mbText(t.heapBytes)}); indexes: ${t.indexes.map((i) => `${i.name} ${mbText(i.bytes)}`).join(", ") || "none"}.`;
}

function signalsSection(s: SignalsSummary, engine: string): string {
  const pct = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(0)}%` : "–");
  const total = s.byType.reduce(
    (sum, t) => ({
      retendered: sum.retendered + t.retendered,
      open: sum.open + t.open,
      next: sum.next + t.openNext12Months,
    }),
    { retendered: 0, open: 0, next: 0 },
  );
  return [
    `Full renewal-signal recompute (\`recomputeSignals({ full: true })\`, in its own process before the API worker starts, after the aggregates' full refresh; ${engine}): **${s.seconds.toFixed(1)} s** for ${s.buyers.toLocaleString("en")} buyers, ${s.signals.toLocaleString("en")} signals written (${pct(total.retendered, s.signals)} re-tendered; ${total.open.toLocaleString("en")} open on ${s.today}, ${total.next.toLocaleString("en")} of them in the default 12-month window).`,
    "",
    markdownTable(
      [
        "signal type",
        "signals",
        "buyers",
        "re-tendered",
        "open today",
        "open, next 12 months",
        "high / medium / low",
        "median days (recurrence: median interval; expiry: window length)",
      ],
      s.byType.map((t) => [
        t.type,
        t.signals.toLocaleString("en"),
        t.buyers.toLocaleString("en"),
        `${t.retendered.toLocaleString("en")} (${pct(t.retendered, t.signals)})`,
        t.open.toLocaleString("en"),
        t.openNext12Months.toLocaleString("en"),
        `${t.high.toLocaleString("en")} / ${t.medium.toLocaleString("en")} / ${t.low.toLocaleString("en")}`,
        t.medianDays ?? "–",
      ]),
    ),
  ].join("\n");
}

function formatSection(
  title: string,
  out: WorkerOutput,
  awardsTarget: number,
  windowSeconds: string,
  signals: SignalsSummary,
  load: { before: number[]; after: number[] },
): string {
  const { results, health, around, memory, corpus, searchRows, renewalSignals } = out;
  const floor = quantiles(health.ms).p50;
  const withRatios = (ms: number[]) => {
    const q = quantiles(ms);
    return [f1(q.p50), f1(q.p95), f1(q.p99), ratio(q.p50, floor), ratio(q.p95, floor), ratio(q.p99, floor)];
  };
  const byEndpoint = new Map<string, { ms: number[]; first: number[] }>();
  for (const r of results) {
    const entry = byEndpoint.get(r.endpoint) ?? { ms: [], first: [] };
    entry.ms.push(...r.ms);
    entry.first.push(r.first);
    byEndpoint.set(r.endpoint, entry);
  }
  const floorQ = quantiles(health.ms);
  const summary = [
    [
      health.endpoint,
      health.ms.length,
      f1(floorQ.p50),
      f1(floorQ.p95),
      f1(floorQ.p99),
      "1.0×",
      ratio(floorQ.p95, floor),
      ratio(floorQ.p99, floor),
      f1(health.first),
      f1(health.first),
    ],
    ...[...byEndpoint].map(([endpoint, { ms, first }]) => {
      const firsts = [...first].sort((a, b) => a - b);
      return [
        endpoint,
        ms.length,
        ...withRatios(ms),
        f1(quantiles(firsts).p50),
        f1(firsts.at(-1) ?? Number.NaN),
      ];
    }),
  ];
  const rows = results.map((r) => [
    r.endpoint,
    r.label,
    r.status,
    totalCell(r),
    r.rows ?? "",
    f1(r.first),
    ...withRatios(r.ms),
  ]);
  const parts = [
    `## ${title}`,
    "",
    `Corpus: ${out.engine}, ${corpus.awards.toLocaleString("en")} awards (target ${awardsTarget.toLocaleString("en")}), ${corpus.tenders.toLocaleString("en")} tenders; ${corpus.text}`,
    "",
    `Machine: ${machineLine()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GB, shared with other workers: load average (1, 5, 15 min) ${loadText(load.before)} when the API worker started, ${loadText(load.after)} when it ended. Floor of this run (GET /health, free: HTTP, routing, one database round trip): p50 ${f1(floor)} ms; "× floor" columns divide by it. Database floor (\`SELECT count(*) FROM generate_series(1, 200000)\` once per round, in the worker, no HTTP: the database's share of a shared machine's CPU, which /health does not show): ${dbFloorText(out.dbFloor)}.`,
    "",
    signalsSection(signals, out.engine),
    "",
    `Picked from the loaded database: ${out.picks.join("; ")}.`,
    "",
    markdownTable(
      [
        "endpoint",
        "calls",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "p50 × floor",
        "p95 × floor",
        "p99 × floor",
        "first calls p50 ms",
        "first calls max ms",
      ],
      summary,
    ),
    "",
    markdownTable(
      [
        "endpoint",
        "query",
        "status",
        "meta.total",
        "rows",
        "first call ms",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "p50 × floor",
        "p95 × floor",
        "p99 × floor",
      ],
      rows,
    ),
    "",
  ];
  if (around) {
    const { windows, ingest } = around;
    const shared =
      out.engine === "pglite"
        ? `On PGlite the ingest runs inside the API process and queries and the ingest share one connection (PGlite serialises them)${out.lanes ? `; the ingest runs in the background lane, as the server runs it: before each statement and between entries it waits until no request has used the engine for ${DEFAULT_LANE_OPTIONS.quietMs} ms or for at most ${DEFAULT_LANE_OPTIONS.maxWaitMs} ms, then goes on for ${DEFAULT_LANE_OPTIONS.sliceMs} ms (src/db/lanes.ts)` : "; the background lane is off (--lanes off): the ingest and the requests take the engine in arrival order"}; ${out.parse === "thread" ? "it parses its pages on a thread of its own, as the server does (src/ingest/placsp/parse-thread.ts)" : "it parses its pages on the serving thread (--parse inline)"}.`
        : out.pgIngest === "thread"
          ? "On PostgreSQL the ingest runs inside the API process on a thread of its own with its own pool of connections (--pg-ingest thread), as a server that leads the ingest runs it (src/fleet/leader-thread.ts); it parses its pages on a further thread."
          : out.pgIngest === "in-process"
            ? `On PostgreSQL the ingest runs inside the API process on its serving thread (--pg-ingest in-process), as a server leading the ingest ran it before src/fleet/leader-thread.ts; ${out.parse === "thread" ? "it parses its pages on a thread of its own (src/ingest/placsp/parse-thread.ts)" : "it parses its pages on the serving thread (--parse inline)"}.`
            : `On PostgreSQL the ingest runs in its own process against the same database${ingest.peakRssMb === null ? "" : ` (its peak RSS ${ingest.peakRssMb.toFixed(0)} MB)`}.`;
    parts.push(
      `Search around an ingest of ${ingest.entries.toLocaleString("en")} new synthetic entries (${ingest.entriesNew.toLocaleString("en")} new, ${ingest.entriesUpdated} updated, ${ingest.entriesUnchanged} unchanged, ${ingest.errors} errors: the feed carries several versions of some folders, and versions after a tender's first count as updated or unchanged; tenders ${around.tenders.before.toLocaleString("en")} → ${around.tenders.after.toLocaleString("en")}, awards ${around.awards.before.toLocaleString("en")} → ${around.awards.after.toLocaleString("en")}): ${Math.round(ingest.entriesPerSecond)} entries/s (${ingest.seconds.toFixed(1)} s including the aggregate refresh after it). ${shared} The search mix is cycled one call at a time${out.thinkMs > 0 ? `, with a pause of ${out.thinkMs} ms after each (the engine idle between requests, as on a lightly used instance), each call timed from when it was due (this process sends the calls, so one due while the thread is busy is sent late; that delay is counted)` : ", the next call sent as soon as the last one answered"}: before (steady state: whole passes over the mix, at least ${windowSeconds} s), during the ingest (from its start to its end${out.engine === "postgres" && out.pgIngest === "own-process" ? ", its process's start-up included" : ""}), and for ${windowSeconds} s just after it. The database floor is timed once per pass over the mix in each window: searches that slow down by no more than it lost the machine's CPU to the ingest (on PostgreSQL its processes run beside the database's on the same cores), not time waiting on it.`,
      "",
      ingest.afterIngest.signals
        ? `The incremental signal recompute that followed this ingest (afterIngestRun, inside the ingest's own run, timed by the pipeline's own log line, while the search loop ran): **${(ingest.afterIngest.signals.ms / 1000).toFixed(2)} s** for ${ingest.afterIngest.signals.pairs.toLocaleString("en")} buyer x CPV division pairs (of ${ingest.afterIngest.signals.buyers.toLocaleString("en")} buyers) marked dirty by the run, ${ingest.afterIngest.signals.signals.toLocaleString("en")} signals computed for them, of which ${ingest.afterIngest.signals.written.toLocaleString("en")} written (new or changed; unchanged ones are not rewritten) and ${ingest.afterIngest.signals.removed.toLocaleString("en")} removed; the incremental aggregate refresh before it: ${ingest.afterIngest.statsMs === null ? "not logged" : `${(ingest.afterIngest.statsMs / 1000).toFixed(2)} s`}.`
        : "The incremental signal recompute after this ingest was not logged.",
      "",
      markdownTable(
        [
          "window",
          "seconds",
          "searches",
          "non-200",
          "p50 ms",
          "p95 ms",
          "p99 ms",
          "p50 × floor",
          "p95 × floor",
          "p99 × floor",
          "database floor p50 ms",
          "p95 × database floor",
        ],
        (
          [
            ["before (steady state)", windows.before],
            ["during the ingest", windows.during],
            ["just after", windows.after],
          ] as const
        ).map(([label, w]) => {
          // NaN (a dash) without samples, as quantiles gives for an empty window.
          const dbFloorP50 = quantiles(w.dbFloor).p50;
          return [
            label,
            w.seconds.toFixed(1),
            w.ms.length,
            w.errors,
            ...withRatios(w.ms),
            f1(dbFloorP50),
            ratio(quantiles(w.ms).p95, dbFloorP50),
          ];
        }),
      ),
      ...(around.holds ? ["", holdsText(around.holds, windows.before)] : []),
      "",
      `The API process's event-loop delay (resolution 10 ms, so about 10 ms when idle) p50 / p99 / max, ms: before ${loopDelayText(windows.before)}, during ${loopDelayText(windows.during)}, after ${loopDelayText(windows.after)}.`,
      "",
      "Per query of the mix, in each window (a window holds one to a few dozen calls of each query, so its p95 is rough):",
      "",
      perQueryAroundIngest(windows),
      "",
    );
  }
  parts.push(
    `Memory of the API process${memory.gc ? " (after a full GC)" : ""}: ${memoryText("after load", memory.afterLoad)}; ${memoryText("after the mix", memory.afterMix)}${memory.peakDuringIngest ? `; peak during the ingest (sampled every 100 ms, no GC): ${memoryText("", memory.peakDuringIngest).trim()}` : ""}.`,
  );
  if (searchRows) {
    parts.push("", tableSizeText("search_rows", searchRows));
  }
  if (renewalSignals) {
    parts.push("", tableSizeText("renewal_signals", renewalSignals));
  }
  return parts.join("\n");
}

export async function benchApi(args: Map<string, string>): Promise<void> {
  const engines = (args.get("engines") ?? "postgres,pglite").split(",");
  const reuse = args.get("reuse") === "yes";
  const repeats = args.get("repeats") ?? "30";
  const baseEntries = Number(args.get("base-entries") ?? "50000");
  const ingestEntries = Number(args.get("ingest-entries") ?? "10000");
  const windowSeconds = args.get("window-seconds") ?? "20";
  // On PGlite the in-process ingest runs in the background lane, as the server runs it; "off" measures it
  // without (src/db/lanes.ts).
  const lanes = args.get("lanes") ?? "on";
  const thinkMs = args.get("think-ms") ?? "0";
  // On PGlite the in-process ingest parses its pages on a thread of its own, as the server does; "inline" parses
  // them on the serving thread (src/ingest/placsp/parse-thread.ts).
  const parse = args.get("parse") ?? "thread";
  // On PostgreSQL the ingest runs in a process of its own by default; "thread" runs it inside the API process on a
  // thread of its own, as a server that leads the ingest does (src/fleet/leader-thread.ts); "in-process" on the
  // serving thread, as such a server did before.
  const pgIngest = args.get("pg-ingest") ?? "own-process";
  const sections: string[] = [];
  for (const engine of engines) {
    const awards = Number(args.get(`awards-${engine}`) ?? (engine === "postgres" ? 1_000_000 : 100_000));
    let env: Record<string, string>;
    let cleanup = async () => {};
    if (engine === "postgres") {
      const name = args.get("pg-database") ?? `pi_bench_api_${awards}`;
      if (reuse && (await pgDatabaseExists(name))) {
        const url = new URL(BENCH_PG_URL);
        url.pathname = `/${name}`;
        env = { DATABASE_URL: url.toString(), DATA_DIR: "" };
      } else {
        const database = await freshPgDatabase(name);
        env = { DATABASE_URL: database.url, DATA_DIR: "" };
        if (!reuse) {
          cleanup = () => database.drop();
        }
        try {
          await load(env, awards, baseEntries);
        } catch (error) {
          // A half-loaded database must not be picked up by a later --reuse run.
          await database.drop();
          throw error;
        }
      }
    } else {
      const dataDir = await mkdtemp(join(tmpdir(), "pi-bench-api-pglite-"));
      env = { DATA_DIR: dataDir, DATABASE_URL: "" };
      cleanup = () => rm(dataDir, { recursive: true, force: true });
      try {
        await load(env, awards, baseEntries);
      } catch (error) {
        await cleanup();
        throw error;
      }
    }
    const newDir = await mkdtemp(join(tmpdir(), "pi-bench-api-new-"));
    try {
      const { highest, signals } = await prepare(env);
      if (ingestEntries > 0) {
        const started = performance.now();
        const written = await writeNewSyntheticEntries(newDir, {
          entries: ingestEntries,
          seed: NEW_ENTRIES_SEED,
          now: NEW_ENTRIES_NOW,
          years: 0.25,
          above: highest,
        });
        process.stdout.write(
          `generated ${ingestEntries} new entries (${written.files} pages, ${(written.bytes / 1e6).toFixed(0)} MB, entry ids shifted by ${written.offset}) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
        );
      }
      const loadBefore = loadavg();
      const measured = await runWorker<WorkerOutput>("bench/workers/api-queries.ts", {
        ...env,
        BENCH_REPEATS: repeats,
        BENCH_WINDOW_SECONDS: windowSeconds,
        BENCH_NEW_CORPUS_DIR: ingestEntries > 0 ? newDir : "",
        BENCH_LANES: lanes,
        BENCH_PARSE: parse,
        BENCH_PG_INGEST: pgIngest,
        BENCH_THINK_MS: thinkMs,
      });
      const section = formatSection(
        `${engine}, ${awards.toLocaleString("en")} awards`,
        measured,
        awards,
        windowSeconds,
        signals,
        { before: loadBefore, after: loadavg() },
      );
      sections.push(section);
      process.stdout.write(`\n${section}\n`);
    } finally {
      await rm(newDir, { recursive: true, force: true });
      await cleanup();
    }
  }
  const report = `# api\n\n${machineLine()}; each query of the mix and GET /health once ("first call": nothing cached by the service), then ${repeats} rounds of every query once with GET /health ${Math.max(Number(repeats), 100)} times spread over them (a shared machine's speed drifts over minutes: every query and the floor sample the whole run alike), one call at a time over HTTP on 127.0.0.1, paid with dev tokens; synthetic base corpus of ${baseEntries.toLocaleString("en")} feed entries (seed 643) replicated to the target; around-ingest windows of ${windowSeconds} s.\n\n${sections.join("\n\n")}\n`;
  await writeFile(join(REPO_ROOT, "bench/results/api.md"), report);
}
