import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";
import { freshPgDatabase, machineLine, markdownTable, REPO_ROOT, runWorker } from "./lib.ts";

/**
 * `npm run bench -- ingest-placsp [--entries 10000,50000] [--engines postgres,pglite] [--search-rows off,on]`
 * Generates each synthetic corpus once (not timed), then ingests it end to end (read pages from disk, parse,
 * normalize, resolve parties, upsert) into an empty database in a fresh process per measurement.
 * `--search-rows off` measures the write path as before migration 0015 (search relation triggers disabled, the
 * old GIN index on `tenders.tsv` created), so `off,on` is a before/after comparison on the same corpus.
 */
interface Result {
  entries: number;
  errors: number;
  seconds: number;
  entriesPerSecond: number;
  peakRssMb: number;
  tenders: number;
  awards: number;
  versions: number;
  searchRows: number;
}

export async function benchIngestPlacsp(args: Map<string, string>): Promise<void> {
  const sizes = (args.get("entries") ?? "10000,50000").split(",").map(Number);
  const engines = (args.get("engines") ?? "postgres,pglite").split(",");
  const searchRowModes = (args.get("search-rows") ?? "on").split(",");
  const rows: (string | number)[][] = [];
  for (const size of sizes) {
    const dir = await mkdtemp(join(tmpdir(), "pi-bench-corpus-"));
    try {
      const written = await writeSyntheticFeed(dir, { entries: size, seed: 643 });
      for (const engine of engines) {
        for (const searchRows of searchRowModes) {
          let result: Result;
          if (engine === "postgres") {
            const database = await freshPgDatabase(`pi_bench_ingest_${size}`);
            try {
              result = await runWorker<Result>("bench/workers/ingest-placsp.ts", {
                BENCH_CORPUS_DIR: dir,
                DATABASE_URL: database.url,
                BENCH_SEARCH_ROWS: searchRows,
              });
            } finally {
              await database.drop();
            }
          } else {
            const dataDir = await mkdtemp(join(tmpdir(), "pi-bench-pglite-"));
            try {
              result = await runWorker<Result>("bench/workers/ingest-placsp.ts", {
                BENCH_CORPUS_DIR: dir,
                DATA_DIR: dataDir,
                DATABASE_URL: "",
                BENCH_SEARCH_ROWS: searchRows,
              });
            } finally {
              await rm(dataDir, { recursive: true, force: true });
            }
          }
          const row = [
            engine,
            searchRows === "off" ? "before (no search_rows)" : "search_rows maintained",
            size,
            `${(written.bytes / 1e6).toFixed(0)} MB`,
            result.tenders,
            result.awards,
            result.searchRows,
            result.seconds.toFixed(1),
            Math.round(result.entriesPerSecond),
            Math.round(result.peakRssMb),
            result.errors,
          ];
          rows.push(row);
          process.stdout.write(`${row.join("\t")}\n`);
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const table = markdownTable(
    [
      "engine",
      "write path",
      "entries",
      "XML",
      "tenders",
      "awards",
      "search rows",
      "seconds",
      "entries/s",
      "peak RSS MB",
      "errors",
    ],
    rows,
  );
  const report = `# ingest-placsp\n\n${machineLine()}; synthetic corpus seed 643, batch 500, one process per row.\n\n${table}\n`;
  await writeFile(join(REPO_ROOT, "bench/results/ingest-placsp.md"), report);
  process.stdout.write(`\n${report}`);
}
