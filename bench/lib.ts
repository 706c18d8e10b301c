import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Queryable } from "../src/db/client.ts";

/** Shared helpers of the benchmarks. Timings live here and in bench/results, never in tests. */

export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
export const BENCH_PG_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Runs a TypeScript worker in its own process and returns the JSON it prints last. */
export async function runWorker<T>(script: string, env: Record<string, string>): Promise<T> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) {
    throw new Error(`${script} exited with ${code}: ${out}`);
  }
  const last = out.trim().split("\n").pop() ?? "{}";
  return JSON.parse(last) as T;
}

/** A fresh, empty PostgreSQL database for one measurement; dropped by the returned function. */
export async function freshPgDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BENCH_PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = new pg.Client({ connectionString: BENCH_PG_URL });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function machineLine(): string {
  return `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

/** p50, p95, p99 of a sample, in its unit. */
export function quantiles(sample: readonly number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...sample].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

/**
 * The API's clock in the benchmark: 10:00 UTC on the day after the newest publication in the database. The
 * synthetic corpus ends on its generator's `now` (2026-06-30), whatever the machine's date; a live service's
 * "today" is just after its newest data, and the endpoints that read the clock (renewal windows, open
 * opportunities, research's recent tenders) would otherwise measure a corpus that ended months ago (no open
 * tender, no open signal).
 */
export async function benchNow(db: Queryable): Promise<Date> {
  const { rows } = await db.query<{ day: string | null }>(
    "SELECT (max(publication_date) + 1)::text AS day FROM tenders",
  );
  return new Date(`${rows[0]?.day ?? new Date().toISOString().slice(0, 10)}T10:00:00.000Z`);
}
