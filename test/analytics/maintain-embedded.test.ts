import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { afterIngestRun } from "../../src/analytics/after-ingest.ts";
import { maintainEmbeddedDatabase, maintenanceCommand } from "../../src/analytics/maintain-embedded.ts";
import type { Db } from "../../src/db/client.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { type CraftedEntry, craftedPage } from "../helpers/crafted-placsp.ts";
import { useTestDb } from "../helpers/db.ts";
import { TEST_ENGINE } from "../helpers/engines.ts";
import { ingestPage } from "../helpers/placsp.ts";

/**
 * PGlite runs no autovacuum: after each ingest run the embedded engine applies autovacuum's rules itself
 * (analysed once more than 50 + 10 % of a table's rows changed; vacuumed once more than 1,000 rows were inserted
 * or 50 + 20 % are dead). A PostgreSQL server has its own autovacuum, so there it does nothing.
 */
const t = useTestDb();
const log = createLogger("silent");

function entry(n: number): CraftedEntry {
  return {
    n,
    buyer: { name: "Diputación de Prueba", nif: "P0800000B" },
    cpv: "72000000",
    title: `Servicio de ciberseguridad ${n}`,
    results: [
      { winner: { name: "Acme Sistemas SL", nif: "B12345674" }, awardDate: "2025-03-01", value: 1000 },
    ],
  };
}

/** How many times each table was analysed and vacuumed, as "analyses/vacuums". */
async function maintained(db: Db): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; counts: string }>(
    `SELECT relname AS name,
            (analyze_count + autoanalyze_count) || '/' || (vacuum_count + autovacuum_count) AS counts
       FROM pg_stat_user_tables WHERE relname IN ('tenders', 'search_rows', 'leads') ORDER BY relname`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.counts]));
}

/** "analyses/vacuums" plus the given numbers. */
function plus(counts: string | undefined, analyses: number, vacuums: number): string {
  const [a, v] = (counts ?? "0/0").split("/").map(Number);
  return `${(a ?? 0) + analyses}/${(v ?? 0) + vacuums}`;
}

describe("maintainEmbeddedDatabase", () => {
  it.skipIf(TEST_ENGINE !== "pglite")("analyses and vacuums what an ingest run changed enough", async () => {
    const before = await maintained(t.db);
    // 600 tenders into empty tables: more than 50 + 10 % of 0 rows changed in tenders and search_rows (both
    // analysed); 1,200 search rows inserted (a tender row and an award row each), more than 1,000 (vacuumed), but
    // only 600 tenders (not vacuumed).
    await ingestPage(t.db, { xml: craftedPage(Array.from({ length: 600 }, (_, i) => entry(i + 1))) });
    await afterIngestRun({ db: t.db, log, now: () => new Date() });
    const after = await maintained(t.db);
    expect(after.tenders).toBe(plus(before.tenders, 1, 0));
    expect(after.search_rows).toBe(plus(before.search_rows, 1, 1));
    expect(after.leads).toBe(before.leads); // nothing written there
    // The planner now knows the words of the search vectors (what the date probe and long queries read).
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stats
        WHERE tablename = 'search_rows' AND attname = 'tsv' AND most_common_elems IS NOT NULL`,
    );
    expect(rows[0]?.n).toBe(1);

    // Five more tenders: under 50 + 10 % of the rows and under 1,000 inserts, nothing more is done.
    await ingestPage(t.db, { xml: craftedPage(Array.from({ length: 5 }, (_, i) => entry(700 + i))) });
    await afterIngestRun({ db: t.db, log, now: () => new Date() });
    expect(await maintained(t.db)).toEqual(after);
  });

  it.skipIf(TEST_ENGINE !== "pglite")(
    "skips the indexes' cleanup pass of a vacuum of a table with no dead row, not of one with dead rows",
    async () => {
      await t.db.exec(`
        CREATE TABLE maint_inserted (id int PRIMARY KEY, words text);
        CREATE INDEX maint_inserted_words_idx ON maint_inserted USING gin (to_tsvector('simple', words));
        CREATE INDEX maint_inserted_words_trgm_idx ON maint_inserted USING gin (words gin_trgm_ops);
        CREATE TABLE maint_deleted (id int PRIMARY KEY, words text);
        CREATE TABLE maint_mixed (id int PRIMARY KEY, words text);
        INSERT INTO maint_deleted SELECT n, 'palabra ' || n FROM generate_series(1, 2000) n;`);
      await t.db.exec("VACUUM ANALYZE maint_deleted");
      await t.db.exec(`
        DELETE FROM maint_deleted WHERE id > 500;
        INSERT INTO maint_inserted SELECT n, 'palabra ' || n FROM generate_series(1, 1500) n;
        INSERT INTO maint_mixed SELECT n, 'palabra ' || n FROM generate_series(1, 1500) n;
        DELETE FROM maint_mixed WHERE id <= 10;`);
      const lines: { msg: string; tables?: string[] }[] = [];
      const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
      await maintainEmbeddedDatabase({ db: t.db, log });
      const tables = lines.find(
        (line) => line.msg === "embedded database maintained as autovacuum would",
      )?.tables;
      // The cleanup pass would also have merged the GIN indexes' pending lists: that is done index by index.
      expect(tables).toContain(
        "maint_inserted (vacuum (analyze, index_cleanup off); 2 GIN pending lists merged)",
      );
      expect(tables).toContain("maint_deleted (vacuum (analyze))");
      // Inserts with a few dead rows (under the threshold) still get the whole vacuum: their line pointers go.
      expect(tables).toContain("maint_mixed (vacuum (analyze))");
      // Nothing is left in those lists (the function returns the pending pages it merged; the 1,500 inserted rows
      // had filled some).
      const { rows } = await t.db.query<{ left: number }>(
        `SELECT gin_clean_pending_list('maint_inserted_words_idx'::regclass)
                + gin_clean_pending_list('maint_inserted_words_trgm_idx'::regclass) AS left`,
      );
      expect(Number(rows[0]?.left)).toBe(0);
    },
  );

  it("skips the cleanup pass only when the table has no dead row", () => {
    const cases = [
      [{ analyse: false, dead: false, anyDead: false, inserted: false }, null],
      [{ analyse: true, dead: false, anyDead: true, inserted: false }, "ANALYZE"],
      [{ analyse: false, dead: false, anyDead: false, inserted: true }, "VACUUM (INDEX_CLEANUP OFF)"],
      [{ analyse: true, dead: false, anyDead: false, inserted: true }, "VACUUM (ANALYZE, INDEX_CLEANUP OFF)"],
      [{ analyse: true, dead: false, anyDead: true, inserted: true }, "VACUUM (ANALYZE)"],
      [{ analyse: false, dead: true, anyDead: true, inserted: true }, "VACUUM"],
      [{ analyse: true, dead: true, anyDead: true, inserted: false }, "VACUUM (ANALYZE)"],
    ] as const;
    for (const [counters, command] of cases) {
      expect(maintenanceCommand(counters), JSON.stringify(counters)).toBe(command);
    }
  });

  it("does nothing on PostgreSQL, whose own autovacuum does it", async () => {
    const statements: string[] = [];
    const postgres = {
      engine: "postgres",
      query: (sql: string) => {
        statements.push(sql);
        return Promise.resolve({ rows: [], rowCount: 0 });
      },
      exec: (sql: string) => {
        statements.push(sql);
        return Promise.resolve();
      },
    } as unknown as Db;
    await maintainEmbeddedDatabase({ db: postgres, log });
    expect(statements).toEqual([]);
  });
});
