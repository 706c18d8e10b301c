import type { Db } from "../db/client.ts";
import type { Logger } from "../lib/logger.ts";

/**
 * What PostgreSQL's autovacuum does for a server, done for the embedded engine after each ingest run: PGlite runs no
 * autovacuum (docs/deploy.md, "Embedded database: its autovacuum"). Without it the planner's statistics are never
 * gathered, so every plan rests on default guesses and search never learns which words are frequent (docs/search.md:
 * the date probe and long queries need them), and dead rows and the visibility map are never dealt with.
 *
 * The rules are autovacuum's, with PostgreSQL's default settings, applied to the counters PostgreSQL keeps per
 * table (`pg_stat_user_tables`): ANALYZE a table once more than 50 + 10 % of its rows changed since it was last
 * analysed; VACUUM it once more than 50 + 20 % of its rows are dead. One rule is tighter than the default: VACUUM
 * once more than 1,000 rows were inserted since the last vacuum, however big the table (the default adds 20 % of
 * it). Vacuum then reads only the pages written since (the others are marked all-visible), so it costs what the
 * run wrote; and the rows an ingest inserts are the newest, which every search lists first through index-only
 * reads that must visit the table for each row on a page not yet marked all-visible (migration 0030 gives
 * PostgreSQL's autovacuum the same rule for the search relations). So a run that wrote little
 * costs one catalog read, and the cost follows what was written, not the database's size. PGlite is
 * single-threaded: a request waits while a VACUUM or ANALYZE runs (run by the ingest leader through the background
 * lane, db/lanes.ts, each starts only in its turn, but no statement is cut short).
 */
export async function maintainEmbeddedDatabase(deps: { db: Db; log: Logger }): Promise<void> {
  if (deps.db.engine !== "pglite") {
    return;
  }
  const started = performance.now();
  // The counters of this session's writes are published at most once a second; publish them now.
  await deps.db.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await deps.db.query<{ name: string; analyse: boolean; vacuum: boolean }>(
    `SELECT s.relname AS name,
            s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) AS analyse,
            (s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
             OR s.n_ins_since_vacuum > 1000) AS vacuum
       FROM pg_stat_user_tables s
       JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema()
      ORDER BY s.relname`,
  );
  const done: string[] = [];
  for (const table of rows) {
    const options = [table.vacuum ? "VACUUM" : null, table.analyse ? "ANALYZE" : null].filter(
      (o) => o !== null,
    );
    if (options.length === 0) {
      continue;
    }
    // A catalog name, quoted as an identifier.
    const name = `"${table.name.replaceAll('"', '""')}"`;
    await deps.db.exec(
      table.vacuum ? `VACUUM ${table.analyse ? "(ANALYZE) " : ""}${name}` : `ANALYZE ${name}`,
    );
    done.push(`${table.name} (${options.join(", ").toLowerCase()})`);
  }
  if (done.length > 0) {
    deps.log.info(
      { tables: done, ms: Math.round(performance.now() - started) },
      "embedded database maintained as autovacuum would",
    );
  }
}
