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
 * PostgreSQL's autovacuum the same rule for the search relations); such a vacuum skips the indexes' cleanup pass
 * (`maintenanceCommand`). So a run that wrote little
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
  const { rows } = await deps.db.query<{
    name: string;
    ident: string;
    analyse: boolean;
    dead: boolean;
    anyDead: boolean;
    inserted: boolean;
  }>(
    `SELECT s.relname AS name, quote_ident(s.relname) AS ident,
            s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) AS analyse,
            s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) AS dead,
            s.n_dead_tup > 0 AS "anyDead",
            s.n_ins_since_vacuum > 1000 AS inserted
       FROM pg_stat_user_tables s
       JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema()
      ORDER BY s.relname`,
  );
  const done: string[] = [];
  for (const table of rows) {
    const command = maintenanceCommand(table);
    if (command === null) {
      continue;
    }
    await deps.db.exec(`${command} ${table.ident}`);
    let merged = 0;
    if (command.includes("INDEX_CLEANUP OFF")) {
      // What the skipped cleanup pass would also have done: merge each GIN index's pending list, so that searches
      // between runs read none. One statement per index, each in its own turn of the background lane.
      for (const index of await ginIndexes(deps.db, table.ident)) {
        await deps.db.query("SELECT gin_clean_pending_list($1::regclass)", [index]);
        merged += 1;
      }
    }
    done.push(
      `${table.name} (${command.toLowerCase()}${merged > 0 ? `; ${merged} GIN pending lists merged` : ""})`,
    );
  }
  if (done.length > 0) {
    deps.log.info(
      { tables: done, ms: Math.round(performance.now() - started) },
      "embedded database maintained as autovacuum would",
    );
  }
}

/** The GIN indexes of a table (its quoted name), as quoted names: what a `regclass` parameter reads. */
async function ginIndexes(db: Db, table: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT quote_ident(c.relname) AS name
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_am am ON am.oid = c.relam
      WHERE i.indrelid = $1::regclass AND am.amname = 'gin'
      ORDER BY c.relname`,
    [table],
  );
  return rows.map((row) => row.name);
}

/**
 * The one command a table's counters call for (to be followed by its name), or null. A vacuum called for by inserts
 * into a table with no dead rows at all skips the indexes' cleanup pass (`INDEX_CLEANUP OFF`): what it is for is the
 * new pages' visibility (and freezing), while the cleanup pass scans every GIN index whole, most of its time, and runs
 * as one statement for all of a table's indexes. What else that pass did, merging each GIN index's pending list,
 * `maintainEmbeddedDatabase` then does index by index (`gin_clean_pending_list`). A table with any dead row gets the
 * whole vacuum: without the index pass its dead rows' line pointers would stay, and their pages would never be marked
 * all-visible again, which every index-only walk of the newest rows needs (measured: a first version that skipped the
 * pass whenever dead rows were under the threshold counted GIN matches up to 1.2–1.7× as slowly after it). Measured:
 * `npm run bench -- maintain-embedded`, bench/results/maintain-embedded.md.
 */
export function maintenanceCommand(table: {
  analyse: boolean;
  dead: boolean;
  anyDead: boolean;
  inserted: boolean;
}): string | null {
  const options = [
    ...(table.analyse ? ["ANALYZE"] : []),
    ...(table.inserted && !table.anyDead ? ["INDEX_CLEANUP OFF"] : []),
  ];
  if (table.dead || table.inserted) {
    return options.length > 0 ? `VACUUM (${options.join(", ")})` : "VACUUM";
  }
  return table.analyse ? "ANALYZE" : null;
}
