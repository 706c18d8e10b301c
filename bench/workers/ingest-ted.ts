import { openDb } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";

/**
 * Ingests a pre-built synthetic TED package into an empty database and reports notices/s and this process's
 * peak RSS. Run by bench/ingest-ted.ts, one process per measurement.
 */
const db = await openDb({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: process.env.DATA_DIR ?? "",
  poolSize: 4,
});
await migrate(db);
const started = performance.now();
const summary = await ingestTed(
  { db, log: createLogger("warn"), now: () => new Date() },
  {
    source: process.env.BENCH_PACKAGE ?? "",
    since: null,
    maxNotices: null,
    batchSize: 250,
    http: { userAgent: "bench", timeoutMs: 1000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
    lookbackDays: 30,
  },
);
const seconds = (performance.now() - started) / 1000;
const { rows } = await db.query<{ tenders: number; awards: number }>(
  "SELECT (SELECT count(*) FROM tenders)::int AS tenders, (SELECT count(*) FROM awards)::int AS awards",
);
await db.close();
process.stdout.write(
  `${JSON.stringify({
    notices: summary.notices,
    errors: summary.errors,
    seconds,
    noticesPerSecond: summary.notices / seconds,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    ...rows[0],
  })}\n`,
);
