import { cpus, totalmem } from "node:os";
import { machineLine, markdownTable } from "./lib.ts";
import type { LoadResult } from "./load-cases.ts";

/** The tables of bench/results/load.md, from what bench/load.ts measured. */

/** Everything below this line in bench/results/load.md is kept when the benchmark rewrites the file. */
export const NOTES_MARKER = "<!-- notes below are written by hand and kept across runs -->";

export interface CorpusFacts {
  tenders: number;
  awards: number;
  searchRows: number;
  databaseBytes: number;
}

/** CPU seconds each tier used during one measured run. */
export interface CpuUse {
  /** The server process(es): HTTP, routing, payment gate, JSON (and, on PGlite, the database engine). */
  api: number;
  /** The PostgreSQL backends connected to the benchmark database (0 on PGlite). */
  postgres: number;
  /** This process: autocannon. */
  generator: number;
  /** Every core of the machine, whoever used it (other work on the shared machine included). */
  machineBusy: number;
}

export interface CaseMeasurement {
  route: string;
  mix: string;
  result: LoadResult;
  cpu: CpuUse;
  /** Calls the key's balance paid for during the measured run (paid routes); null for free routes. */
  debited: number | null;
}

export interface ReplicaPoint extends CaseMeasurement {
  replicas: number;
  rss: { rss: number; peak: number }[];
}

export interface EngineSection {
  engine: string;
  corpus: CorpusFacts;
  measurements: CaseMeasurement[];
  replicas: ReplicaPoint[];
  /** RSS of the single server after its runs, and its peak. */
  memory: { rss: number; peak: number };
  load: { before: number[]; after: number[] };
}

const int = (n: number) => Math.round(n).toLocaleString("en");
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "–");
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–");
const times = (n: number, of: number) => (of > 0 && Number.isFinite(n) ? `${(n / of).toFixed(2)}×` : "–");
const loadText = (l: number[]) => l.map((n) => n.toFixed(2)).join(", ");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
/** CPU milliseconds per request. */
const msPer = (seconds: number, requests: number) =>
  requests > 0 ? (1000 * seconds) / requests : Number.NaN;
const ENGINE_NAME: Record<string, string> = { postgres: "PostgreSQL", pglite: "PGlite" };

function failures(r: LoadResult): string {
  const failed = r.non2xx + r.errors;
  return failed === 0
    ? "0"
    : `${int(r.non2xx)} + ${int(r.errors)} (${((100 * failed) / r.requests).toFixed(2)}%)`;
}

function debitedText(m: CaseMeasurement): string {
  if (m.debited === null) {
    return "free";
  }
  const served = m.result.requests - m.result.non2xx;
  return `${int(m.debited)} of ${int(served)}`;
}

function engineSection(s: EngineSection, floorRoute: string): string {
  const name = ENGINE_NAME[s.engine] ?? s.engine;
  const floor = s.measurements.find((m) => m.route === floorRoute)?.result;
  const rows = s.measurements.map((m) => {
    const r = m.result;
    return [
      m.route,
      m.mix,
      int(r.requests),
      int(r.perSecond),
      times(r.perSecond, floor?.perSecond ?? 0),
      r.p50,
      times(r.p50, floor?.p50 ?? 0),
      r.p99,
      times(r.p99, floor?.p99 ?? 0),
      failures(r),
      debitedText(m),
    ];
  });
  const cpuRows = s.measurements.map((m) => {
    const n = m.result.requests;
    const apiMs = msPer(m.cpu.api, n);
    return [
      m.route,
      f2(apiMs),
      s.engine === "postgres" ? f2(msPer(m.cpu.postgres, n)) : "in the API process",
      f2(msPer(m.cpu.generator, n)),
      f2(m.cpu.api / m.result.seconds),
      s.engine === "postgres" ? f2(m.cpu.postgres / m.result.seconds) : "–",
      f2(m.cpu.generator / m.result.seconds),
      `${(100 * ((m.cpu.api + m.cpu.postgres + m.cpu.generator) / m.cpu.machineBusy)).toFixed(0)}%`,
      int(1000 / apiMs),
    ];
  });
  return [
    `## ${name}, one server process`,
    "",
    `Corpus: ${int(s.corpus.tenders)} tenders, ${int(s.corpus.awards)} awards, ${int(s.corpus.searchRows)} search rows; database ${mb(s.corpus.databaseBytes)} (\`pg_database_size\`). Load average (1, 5, 15 min) ${loadText(s.load.before)} before this engine's runs, ${loadText(s.load.after)} after.`,
    "",
    markdownTable(
      [
        "route",
        "mix",
        "requests",
        "req/s",
        "req/s × /health",
        "p50 ms",
        "p50 × /health",
        "p99 ms",
        "p99 × /health",
        "non-2xx + errors",
        "paid calls debited of 2xx",
      ],
      rows,
    ),
    "",
    `Where the CPU went (CPU time of each tier over the measured run, from /proc; "cores" = CPU seconds per second of the run, of ${cpus().length}; "share" = the part of the machine's busy CPU that went to the server, its PostgreSQL backends and the generator, the rest going to other work on the shared machine; "req/s per API core" = 1000 / the API process's ms per request):`,
    "",
    markdownTable(
      [
        "route",
        "API process ms CPU / request",
        "PostgreSQL ms CPU / request",
        "load generator ms CPU / request",
        "API cores",
        "PostgreSQL cores",
        "generator cores",
        "share",
        "req/s per API core",
      ],
      cpuRows,
    ),
    "",
    `Memory of the server process after these runs: RSS ${f1(s.memory.rss)} MB, peak ${f1(s.memory.peak)} MB.`,
  ].join("\n");
}

/** Two measurements of one route on one replica count, pooled: requests over seconds, CPU over seconds. */
function pooled(points: ReplicaPoint[]) {
  const seconds = points.reduce((sum, p) => sum + p.result.seconds, 0);
  const sum = (f: (p: ReplicaPoint) => number) => points.reduce((total, p) => total + f(p), 0);
  const mean = (f: (p: ReplicaPoint) => number) => sum(f) / points.length;
  return {
    perSecond: sum((p) => p.result.requests) / seconds,
    passes: points.map((p) => int(p.result.perSecond)).join(", "),
    p50: mean((p) => p.result.p50),
    p99: mean((p) => p.result.p99),
    failed: sum((p) => p.result.non2xx + p.result.errors),
    requests: sum((p) => p.result.requests),
    debited: points.every((p) => p.debited === null) ? null : sum((p) => p.debited ?? 0),
    served: sum((p) => p.result.requests - p.result.non2xx),
    api: sum((p) => p.cpu.api) / seconds,
    postgres: sum((p) => p.cpu.postgres) / seconds,
    generator: sum((p) => p.cpu.generator) / seconds,
    share: sum((p) => p.cpu.api + p.cpu.postgres + p.cpu.generator) / sum((p) => p.cpu.machineBusy),
  };
}

function replicaSection(s: EngineSection, floorRoute: string): string {
  const routes = [...new Set(s.replicas.map((p) => p.route))];
  const counts = [...new Set(s.replicas.map((p) => p.replicas))].sort((a, b) => a - b);
  const at = (route: string, count: number) =>
    pooled(s.replicas.filter((p) => p.route === route && p.replicas === count));
  const rows = routes.flatMap((route) => {
    const one = at(route, counts[0] ?? 1).perSecond;
    return counts.map((count) => {
      const p = at(route, count);
      const failed =
        p.failed === 0 ? "0" : `${int(p.failed)} (${((100 * p.failed) / p.requests).toFixed(2)}%)`;
      return [
        route,
        count,
        int(p.perSecond),
        p.passes,
        times(p.perSecond, one),
        times(p.perSecond, at(floorRoute, count).perSecond),
        f1(p.p50),
        f1(p.p99),
        failed,
        p.debited === null ? "free" : `${int(p.debited)} of ${int(p.served)}`,
        f2(p.api),
        f2(p.postgres),
        f2(p.generator),
        `${(100 * p.share).toFixed(0)}%`,
      ];
    });
  });
  const rss = counts.map(
    (count) =>
      `${count}: ${s.replicas
        .filter((p) => p.replicas === count)
        .at(-1)
        ?.rss.map((r) => `${f1(r.rss)} MB`)
        .join(", ")}`,
  );
  const peaks = s.replicas.flatMap((p) => p.rss.map((r) => r.peak));
  return [
    `## ${counts.join(", ")} replicas on one PostgreSQL database`,
    "",
    `${Math.max(...counts)} server processes on the same database, started once; each row sends the same connections to the first 1, 2 or 3 of them, dealt in turn (autocannon's round robin over their URLs: clients spread over ports as a load balancer spreads them; a proxy process of our own would take CPU from the replicas on this 2-core machine and measure itself). Each count is measured twice, in the order ${[...counts, ...[...counts].reverse()].join(", ")}, so that a load drifting during the section weighs on every count alike; req/s pools both passes (both shown), latencies are the mean of the two passes' percentiles, CPU is pooled. "share" is the part of the machine's busy CPU that went to the servers, their PostgreSQL backends and the generator (the rest went to other work on the shared machine).`,
    "",
    markdownTable(
      [
        "route",
        "replicas",
        "req/s",
        "req/s of each pass",
        "× 1 replica",
        "× /health (same replicas)",
        "p50 ms",
        "p99 ms",
        "non-2xx + errors",
        "paid calls debited of 2xx",
        "API cores (all replicas)",
        "PostgreSQL cores",
        "generator cores",
        "share",
      ],
      rows,
    ),
    "",
    `RSS of each replica after its last row, by replica count: ${rss.join("; ")}; the largest peak of any replica ${f1(Math.max(...peaks))} MB.`,
  ].join("\n");
}

export function formatLoadReport(report: {
  entries: number;
  seed: number;
  options: { connections: number; seconds: number; warmupSeconds: number };
  sections: EngineSection[];
  load: { before: number[]; after: number[] };
  minutes: number;
}): string {
  const floorRoute = "GET /health";
  const { connections, seconds, warmupSeconds } = report.options;
  const parts = [
    "# load",
    "",
    `${machineLine()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GB. \`npm run bench -- load\` (bench/load.ts), ${report.minutes.toFixed(1)} min in all: autocannon, ${connections} keep-alive connections for ${seconds} s per row after ${warmupSeconds} s of warm-up not counted, against the production entry point \`node dist/main.js\` on 127.0.0.1 (LOG_LEVEL=info: one log line per request, written to a file; per-client rate limit off; scheduled ingestion off; dev payments mode, the paid routes paid from prepaid credit keys, so each counted 200 went through the debit transaction). Corpus: the synthetic generator's base corpus, ${report.entries.toLocaleString("en")} feed entries (seed ${report.seed}) ingested through the real pipeline into each engine; PostgreSQL is the machine's server (Debian's defaults, shared_buffers 128 MB), in a fresh database dropped afterwards.`,
    "",
    `**The machine is shared and noisy**: 2 cores, with other sessions' test suites running beside this one, and the load generator runs on the same 2 cores as the servers and the database. Load average (1, 5, 15 min) ${loadText(report.load.before)} when the benchmark started, ${loadText(report.load.after)} when it ended. Absolute requests/s move with that load; the ratios to GET /health measured in the same section (the floor: HTTP, routing, one database round trip) and the CPU milliseconds per request are the comparable figures. "non-2xx + errors": answers that were not 2xx, plus connections that got no answer (errors, timeouts). "paid calls debited of 2xx": calls the key's balance paid for during the row (read through GET /v1/billing before and after) against the 2xx answers counted; debits beyond the 2xx answers are requests the server served but the generator did not count: one per connection still in flight when the row's time ended, plus those it gave up on after its 10 s timeout (counted in "errors").`,
  ];
  for (const section of report.sections) {
    parts.push("", engineSection(section, floorRoute));
    if (section.replicas.length > 0) {
      parts.push("", replicaSection(section, floorRoute));
    }
  }
  return `${parts.join("\n")}\n`;
}
