import { openDb } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { ingestCorpus } from "../ingest-corpus.ts";

/**
 * Ingests a pre-generated synthetic corpus directory and reports entries/s (new, updated, unchanged) and this
 * process's peak RSS. Run by bench/ingest-placsp.ts into an empty database, one process per measurement, and by
 * the API benchmark's worker into the database it is serving (PostgreSQL), to time searches during an ingest.
 */
const dir = process.env.BENCH_CORPUS_DIR ?? "";
const db = await openDb({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: process.env.DATA_DIR ?? "",
  poolSize: 4,
});
await migrate(db);
if (process.env.BENCH_SEARCH_ROWS === "off") {
  // The write path as it was before migration 0015, for a before/after comparison in one run: no search relation
  // maintenance, and the GIN index on the tenders' text that search used to read.
  await db.exec(`
    ALTER TABLE tenders DISABLE TRIGGER tenders_search_rows_insert;
    ALTER TABLE tenders DISABLE TRIGGER tenders_search_rows_update;
    ALTER TABLE awards DISABLE TRIGGER awards_search_rows_insert;
    ALTER TABLE awards DISABLE TRIGGER awards_search_rows_update;
    ALTER TABLE awards DISABLE TRIGGER awards_search_rows_delete;
    CREATE INDEX IF NOT EXISTS tenders_tsv_idx ON tenders USING gin (tsv);`);
}
const outcome = await ingestCorpus(db, dir, createLogger("warn"));
const { rows } = await db.query<{ tenders: number; awards: number; versions: number; searchRows: number }>(
  `SELECT (SELECT count(*) FROM tenders)::int AS tenders, (SELECT count(*) FROM awards)::int AS awards,
          (SELECT count(*) FROM tender_versions)::int AS versions,
          (SELECT count(*) FROM search_rows)::int AS "searchRows"`,
);
await db.close();
process.stdout.write(
  `${JSON.stringify({
    ...outcome,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    ...rows[0],
  })}\n`,
);
