import { describe, expect, it } from "vitest";
import { afterIngestRun } from "../../src/analytics/after-ingest.ts";
import { maintainEmbeddedDatabase } from "../../src/analytics/maintain-embedded.ts";
import type { Db } from "../../src/db/client.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { type CraftedEntry, craftedPage } from "../helpers/crafted-placsp.ts";
import { useTestDb } from "../helpers/db.ts";
import { TEST_ENGINE } from "../helpers/engines.ts";
import { ingestPage } from "../helpers/placsp.ts";

/**
 * PGlite runs no autovacuum: after each ingest run the embedded engine applies autovacuum's rules itself
 * (analysed once more than 50 + 10 % of a table's rows changed; vacuumed once more than 1,000 + 20 % were inserted
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

async function analyses(db: Db): Promise<Record<string, number>> {
  const { rows } = await db.query<{ name: string; analyses: number }>(
    `SELECT relname AS name, (analyze_count + autoanalyze_count)::int AS analyses
       FROM pg_stat_user_tables WHERE relname IN ('tenders', 'search_rows', 'leads') ORDER BY relname`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.analyses]));
}

describe("maintainEmbeddedDatabase", () => {
  it.skipIf(TEST_ENGINE !== "pglite")(
    "analyses what an ingest run changed enough, as autovacuum would",
    async () => {
      const before = await analyses(t.db);
      // 120 tenders into empty tables: more than 50 + 10 % of 0 rows changed in tenders and search_rows.
      await ingestPage(t.db, { xml: craftedPage(Array.from({ length: 120 }, (_, i) => entry(i + 1))) });
      await afterIngestRun({ db: t.db, log, now: () => new Date() });
      const after = await analyses(t.db);
      expect(after.tenders).toBe((before.tenders ?? 0) + 1);
      expect(after.search_rows).toBe((before.search_rows ?? 0) + 1);
      expect(after.leads).toBe(before.leads); // nothing written there
      // The planner now knows the words of the search vectors (what the date probe and long queries read).
      const { rows } = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stats
        WHERE tablename = 'search_rows' AND attname = 'tsv' AND most_common_elems IS NOT NULL`,
      );
      expect(rows[0]?.n).toBe(1);

      // Five more tenders: under 50 + 10 % of the rows, nothing more is analysed.
      await ingestPage(t.db, { xml: craftedPage(Array.from({ length: 5 }, (_, i) => entry(200 + i))) });
      await afterIngestRun({ db: t.db, log, now: () => new Date() });
      expect(await analyses(t.db)).toEqual(after);
    },
  );

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
