import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDb } from "../src/db/client.ts";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";
import { createLogger } from "../src/lib/logger.ts";
import { amplify } from "./amplify.ts";
import { ingestCorpus } from "./ingest-corpus.ts";
import { machineLine, markdownTable, percentile, REPO_ROOT, runWorker } from "./lib.ts";
import { highestSyntheticEntry, writeNewSyntheticEntries } from "./new-entries.ts";

/**
 * `npm run bench -- maintain-embedded [--awards 100000] [--ingest-entries 10000] [--rounds 3]`
 * The embedded engine's maintenance after an ingest run (src/analytics/maintain-embedded.ts), statement by
 * statement: a PGlite database of the API benchmark's corpus is loaded once, then each round ingests the same new
 * entries into two copies of it, in alternating order: one as landed (a vacuum called for by inserts alone skips the
 * indexes' cleanup pass, and the GIN pending lists are merged index by index after it), one with the cleanup pass
 * on every vacuum (as before). Each maintenance statement is timed (a request on the serving thread waits for it
 * whole), and three searches are timed after it, on the state each leaves. Last, on one more copy, the ANALYZE of
 * the tables whose payload columns migration 0031 leaves without statistics, with and without them. Writes
 * bench/results/maintain-embedded.md.
 */
const VARIANTS = ["as landed", "cleanup on every vacuum"] as const;
type Variant = (typeof VARIANTS)[number];

const SEARCHES: Record<string, string> = {
  "words (GIN)":
    "SELECT id FROM search_rows WHERE kind = 'award' AND tsv @@ websearch_to_tsquery('spanish', 'mantenimiento software') ORDER BY date DESC NULLS LAST, id DESC LIMIT 20",
  "cpv 48 (GIN), counted":
    "SELECT count(*) FROM search_rows WHERE kind = 'award' AND cpv_prefixes @> ARRAY['48']",
  "company name fragment (trigram GIN)":
    "SELECT id FROM companies WHERE name_norm LIKE '%sistemas%' ORDER BY id LIMIT 20",
};

interface Round {
  round: number;
  variant: Variant;
  statements: { sql: string; ms: number }[];
  searchMs: Record<string, number>;
}

export async function benchMaintainEmbedded(args: Map<string, string>): Promise<void> {
  const awards = Number(args.get("awards") ?? "100000");
  const ingestEntries = Number(args.get("ingest-entries") ?? "10000");
  const rounds = Number(args.get("rounds") ?? "3");
  const root = await mkdtemp(join(tmpdir(), "pi-bench-maintain-"));
  try {
    const base = join(root, "base");
    const corpus = join(root, "corpus");
    await writeSyntheticFeed(corpus, { entries: 50_000, seed: 643 });
    await runWorker("bench/workers/ingest-placsp.ts", {
      DATA_DIR: base,
      DATABASE_URL: "",
      BENCH_CORPUS_DIR: corpus,
    });
    await rm(corpus, { recursive: true, force: true });
    const fresh = join(root, "new");
    {
      const db = await openDb({ dataDir: base });
      await amplify(db, awards, (line) => process.stdout.write(`${line}\n`));
      await db.exec("VACUUM ANALYZE");
      await writeNewSyntheticEntries(fresh, {
        entries: ingestEntries,
        seed: 9643,
        now: new Date("2026-09-30T10:00:00.000Z"),
        years: 1,
        above: await highestSyntheticEntry(db),
      });
      await db.close();
    }
    const results: Round[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const variant of round % 2 === 1 ? VARIANTS : [...VARIANTS].reverse()) {
        const result = await measure(base, join(root, "copy"), fresh, variant);
        results.push({ round, ...result });
        process.stdout.write(`round ${round}, ${variant}: ${total(result.statements).toFixed(0)} ms\n`);
      }
    }
    const analyses = await compareStatistics(base, join(root, "copy"), fresh, rounds * 2);
    await writeReport(results, analyses, awards, ingestEntries);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function measure(
  base: string,
  dir: string,
  fresh: string,
  variant: Variant,
): Promise<Omit<Round, "round" | "variant"> & { variant: Variant }> {
  await cp(base, dir, { recursive: true });
  const inner = await openDb({ dataDir: dir });
  try {
    const statements: { sql: string; ms: number }[] = [];
    // The maintenance's statements are the ones exec runs as VACUUM or ANALYZE; the ingest runs nothing else so.
    const db: Db = {
      ...inner,
      // The landed maintenance merges the GIN pending lists one index at a time after a vacuum without the cleanup
      // pass; in the other variant its vacuum has merged them already, and these find them empty.
      query: (async (sql: string, params?: unknown[]) => {
        if (!sql.startsWith("SELECT gin_clean_pending_list")) {
          return inner.query(sql, params);
        }
        const started = performance.now();
        const result = await inner.query(sql, params);
        statements.push({
          sql: `gin_clean_pending_list(${String(params?.[0])})`,
          ms: performance.now() - started,
        });
        return result;
      }) as Db["query"],
      exec: async (sql: string) => {
        const maintenance = /^(VACUUM|ANALYZE)\b/.test(sql);
        const run =
          maintenance && variant === "cleanup on every vacuum"
            ? sql.replace("VACUUM (INDEX_CLEANUP OFF) ", "VACUUM ").replace(", INDEX_CLEANUP OFF)", ")")
            : sql;
        const started = performance.now();
        await inner.exec(run);
        if (maintenance) {
          statements.push({ sql: run, ms: performance.now() - started });
        }
      },
    };
    await ingestCorpus(db, fresh, createLogger("warn"));
    const searchMs: Record<string, number> = {};
    for (const [name, sql] of Object.entries(SEARCHES)) {
      const times: number[] = [];
      for (let i = 0; i < 15; i++) {
        const started = performance.now();
        await inner.query(sql);
        times.push(performance.now() - started);
      }
      searchMs[name] = percentile(
        times.sort((a, b) => a - b),
        50,
      );
    }
    return { variant, statements, searchMs };
  } finally {
    await inner.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The payload columns migration 0031 leaves without statistics, by table. */
const PAYLOAD_COLUMNS: Record<string, string[]> = {
  renewal_signals: ["basis", "evidence_tender_ids", "content_hash"],
  company_stats: ["top_cpvs", "top_buyers", "profile_buyers", "profile_cpvs"],
  buyer_stats: ["recurrence"],
};

/**
 * On one copy after the ingest, each table's ANALYZE timed `repeats` times with its payload columns unanalysed (as
 * migration 0031 sets them) and analysed (the default target), alternated; medians.
 */
async function compareStatistics(
  base: string,
  dir: string,
  fresh: string,
  repeats: number,
): Promise<{ table: string; without: number; withStats: number }[]> {
  await cp(base, dir, { recursive: true });
  const db = await openDb({ dataDir: dir });
  try {
    await ingestCorpus(db, fresh, createLogger("warn"));
    const times = new Map<string, { without: number[]; withStats: number[] }>();
    for (let i = 0; i < repeats; i++) {
      for (const target of i % 2 === 0 ? [0, -1] : [-1, 0]) {
        for (const [table, columns] of Object.entries(PAYLOAD_COLUMNS)) {
          await db.exec(
            `ALTER TABLE ${table} ${columns.map((c) => `ALTER COLUMN ${c} SET STATISTICS ${target}`).join(", ")}`,
          );
          const started = performance.now();
          await db.exec(`ANALYZE ${table}`);
          const ms = performance.now() - started;
          const entry = times.get(table) ?? { without: [], withStats: [] };
          (target === 0 ? entry.without : entry.withStats).push(ms);
          times.set(table, entry);
        }
      }
    }
    const median = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    return [...times].map(([table, t]) => ({
      table,
      without: median(t.without),
      withStats: median(t.withStats),
    }));
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function total(statements: { ms: number }[]): number {
  return statements.reduce((sum, s) => sum + s.ms, 0);
}

async function writeReport(
  results: Round[],
  analyses: { table: string; without: number; withStats: number }[],
  awards: number,
  ingestEntries: number,
): Promise<void> {
  const longest = (r: Round) => r.statements.reduce((a, b) => (b.ms > a.ms ? b : a), { sql: "", ms: 0 });
  const of = (r: Round, table: string) => r.statements.find((s) => s.sql.endsWith(` ${table}`));
  const merges = (r: Round) =>
    r.statements.filter((s) => s.sql.startsWith("gin_clean_pending_list(search_rows"));
  const rows = results.map((r) => {
    const searchRows = of(r, "search_rows");
    return [
      r.round,
      r.variant,
      r.statements.length,
      total(r.statements).toFixed(0),
      `${longest(r).ms.toFixed(0)} (${longest(r).sql})`,
      searchRows ? `${searchRows.ms.toFixed(0)} (${searchRows.sql})` : "—",
      merges(r).length === 0
        ? "—"
        : `${total(merges(r)).toFixed(0)} in ${merges(r).length}, longest ${Math.max(...merges(r).map((m) => m.ms)).toFixed(0)}`,
      ...Object.keys(SEARCHES).map((name) => (r.searchMs[name] ?? Number.NaN).toFixed(2)),
    ];
  });
  const report = [
    "# maintain-embedded",
    "",
    `${machineLine()}; PGlite, the API benchmark's corpus (50,000 synthetic entries, seed 643, replicated to ${awards.toLocaleString("en")} awards), vacuumed and analysed once; each round ingests the same ${ingestEntries.toLocaleString("en")} new entries (seed 9643) into two fresh copies of it, the variants in alternating order, and times every statement of the maintenance after the run (src/analytics/maintain-embedded.ts: a request waits for each whole) and, after it, three searches (median of 15).`,
    "",
    markdownTable(
      [
        "round",
        "variant",
        "statements",
        "maintenance ms in all",
        "longest statement, ms",
        "search_rows, ms",
        "its GIN pending lists merged after, ms",
        ...Object.keys(SEARCHES).map((name) => `${name} ms`),
      ],
      rows,
    ),
    "",
    "ANALYZE of the tables whose payload columns migration 0031 leaves without statistics, on one more copy after the same ingest: median of " +
      `${results.length} runs each, the two settings alternated.`,
    "",
    markdownTable(
      [
        "table",
        "payload columns",
        "ANALYZE ms, without their statistics (0031)",
        "with them (default)",
        "ratio",
      ],
      analyses.map((a) => [
        a.table,
        (PAYLOAD_COLUMNS[a.table] ?? []).join(", "),
        a.without.toFixed(0),
        a.withStats.toFixed(0),
        (a.without / a.withStats).toFixed(2),
      ]),
    ),
    "",
  ].join("\n");
  await writeFile(join(REPO_ROOT, "bench/results/maintain-embedded.md"), report);
  process.stdout.write(report);
}
