import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { syntheticTedNotices } from "../src/ingest/ted/synthetic.ts";
import { TAR_END, tarEntry } from "../test/helpers/tar.ts";
import { freshPgDatabase, machineLine, markdownTable, REPO_ROOT, runWorker } from "./lib.ts";

/**
 * `npm run bench -- ingest-ted [--notices 10000,20000] [--engines postgres,pglite]`
 * Packs each synthetic eForms corpus once into a daily-package-like `.tar.gz` (streamed, not timed), then
 * ingests it end to end through `ingestTed` (gunzip, untar, parse, normalize, resolve parties, upsert,
 * refresh stats) into an empty database, in a fresh process per measurement so peak RSS is the run's own.
 */
interface Result {
  notices: number;
  errors: number;
  seconds: number;
  noticesPerSecond: number;
  peakRssMb: number;
  tenders: number;
  awards: number;
}

export async function benchIngestTed(args: Map<string, string>): Promise<void> {
  const sizes = (args.get("notices") ?? "10000,20000").split(",").map(Number);
  const engines = (args.get("engines") ?? "postgres,pglite").split(",");
  const rows: (string | number)[][] = [];
  const loadBefore = loadavg()[0] ?? 0;
  for (const size of sizes) {
    const dir = await mkdtemp(join(tmpdir(), "pi-bench-ted-"));
    try {
      const packagePath = join(dir, `synthetic-${size}.tar.gz`);
      const xmlBytes = await writeSyntheticPackage(packagePath, size);
      const packageBytes = (await stat(packagePath)).size;
      for (const engine of engines) {
        let result: Result;
        if (engine === "postgres") {
          const database = await freshPgDatabase("pi_bench_ingest_ted");
          try {
            result = await runWorker<Result>("bench/workers/ingest-ted.ts", {
              BENCH_PACKAGE: packagePath,
              DATABASE_URL: database.url,
            });
          } finally {
            await database.drop();
          }
        } else {
          const dataDir = await mkdtemp(join(tmpdir(), "pi-bench-pglite-"));
          try {
            result = await runWorker<Result>("bench/workers/ingest-ted.ts", {
              BENCH_PACKAGE: packagePath,
              DATA_DIR: dataDir,
              DATABASE_URL: "",
            });
          } finally {
            await rm(dataDir, { recursive: true, force: true });
          }
        }
        const row = [
          engine,
          result.notices,
          `${(xmlBytes / 1e6).toFixed(0)} MB / ${(packageBytes / 1e6).toFixed(1)} MB`,
          result.tenders,
          result.awards,
          result.seconds.toFixed(1),
          Math.round(result.noticesPerSecond),
          Math.round(result.peakRssMb),
          result.errors,
        ];
        rows.push(row);
        process.stdout.write(`${row.join("\t")}\n`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const table = markdownTable(
    [
      "engine",
      "notices",
      "XML / .tar.gz",
      "tenders",
      "awards",
      "seconds",
      "notices/s",
      "peak RSS MB",
      "errors",
    ],
    rows,
  );
  // The machine may be shared: say how busy it was, since throughput is CPU-bound (parsing).
  const load = `${cpus().length} CPUs, load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after`;
  const report =
    `# ingest-ted\n\n${machineLine()}, ${load}; synthetic eForms corpus (seed 643, ~70% award notices ` +
    "with 1–4 lots), one daily-package-like .tar.gz per size, batch 250, one process per row. Peak RSS is the " +
    "worker's whole process (PGlite holds its database in the process).\n\n" +
    `${table}\n`;
  await writeFile(join(REPO_ROOT, "bench/results/ingest-ted.md"), report);
  process.stdout.write(`\n${report}`);
}

/** Streams `count` synthetic notices into a `.tar.gz`; returns the uncompressed XML size. */
async function writeSyntheticPackage(path: string, count: number): Promise<number> {
  let xmlBytes = 0;
  async function* blocks(): AsyncGenerator<Buffer> {
    for (const notice of syntheticTedNotices({ notices: count })) {
      const data = Buffer.from(notice.xml);
      xmlBytes += data.length;
      yield* tarEntry({ name: notice.name, data });
    }
    yield TAR_END;
  }
  await pipeline(Readable.from(blocks()), createGzip({ level: 6 }), createWriteStream(path));
  return xmlBytes;
}
