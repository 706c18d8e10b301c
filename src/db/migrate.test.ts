import { afterEach, describe, expect, it } from "vitest";
import { createEmptyDb, createTestDb, type TestDatabase } from "../../test/helpers/db.ts";
import { TEST_ENGINE } from "../../test/helpers/engines.ts";
import { createPgDb } from "./client.ts";
import { loadMigrations, migrate } from "./migrate.ts";

const EXPECTED_TABLES = [
  "api_calls",
  "awards",
  "buyer_aliases",
  "buyer_identifiers",
  "buyer_stats",
  "buyers",
  "code_vocabulary",
  "company_aliases",
  "company_identifiers",
  "company_members",
  "company_stats",
  "companies",
  "cpv_codes",
  "credit_accounts",
  "credit_ledger",
  "dev_tokens",
  "ingest_checkpoints",
  "ingest_errors",
  "ingest_runs",
  "leads",
  "nuts_codes",
  "payment_proofs",
  "pending_charges",
  "renewal_backtests",
  "renewal_signals",
  "renewal_signals_dirty_pairs",
  "schema_migrations",
  "search_row_quarters",
  "search_rows",
  "search_rows_pending",
  "search_rows_pending_tx",
  "search_tender_winners",
  "source_coverage",
  "stats_dirty",
  "tender_links",
  "tender_tombstones",
  "tender_versions",
  "tenders",
  "webhook_events",
];

let handle: TestDatabase | undefined;
afterEach(async () => {
  await handle?.destroy();
  handle = undefined;
});

describe(`migrate (${TEST_ENGINE})`, () => {
  it("creates the whole storage model on an empty database", async () => {
    handle = await createEmptyDb();
    const result = await migrate(handle.db);
    expect(result.applied).toHaveLength(loadMigrations().length);
    const { rows } = await handle.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(rows.map((r) => r.table_name).sort()).toEqual([...EXPECTED_TABLES].sort());
  });

  it("does nothing when run again", async () => {
    handle = await createEmptyDb();
    await migrate(handle.db);
    const again = await migrate(handle.db);
    expect(again.applied).toEqual([]);
    const { rows } = await handle.db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
    expect(rows[0]?.n).toBe(loadMigrations().length);
  });

  it("lets two migrators start at once: each migration is applied exactly once", async () => {
    handle = await createEmptyDb();
    // Two independent connections pools on PostgreSQL (as two processes would have); one instance on PGlite.
    const second = handle.url ? createPgDb(handle.url, { poolSize: 2 }) : handle.db;
    try {
      const [a, b] = await Promise.all([migrate(handle.db), migrate(second)]);
      const total = loadMigrations().length;
      expect(a.applied.length + b.applied.length).toBe(total);
      expect([a.applied.length, b.applied.length]).toContain(0);
      const { rows } = await handle.db.query<{ id: number }>("SELECT id FROM schema_migrations ORDER BY id");
      expect(rows.map((r) => r.id)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    } finally {
      if (second !== handle.db) {
        await second.close();
      }
    }
  });

  it("rolls back a failing migration completely, ledger row included", async () => {
    handle = await createEmptyDb();
    const broken = [
      ...loadMigrations(),
      { id: 99, name: "broken", sql: "CREATE TABLE half (id int); SELECT 1/0;" },
    ];
    await expect(migrate(handle.db, broken)).rejects.toThrow(/division by zero/);
    const { rows } = await handle.db.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('half', 'tenders')",
    );
    expect(rows).toHaveLength(0);
  });

  it("builds the search relation from the data of a database migrated before it (0015)", async () => {
    handle = await createEmptyDb();
    const migrations = loadMigrations();
    const before = migrations.findIndex((m) => m.name === "search_rows");
    expect(before).toBeGreaterThan(0);
    await migrate(handle.db, migrations.slice(0, before));
    await handle.db.exec(
      `INSERT INTO tenders (source, source_ref, title, publication_date, upstream_updated, raw_hash)
       VALUES ('placsp', 'old-1', 'Servicio de ciberseguridad', '2024-03-01', now(), 'h');
       INSERT INTO companies (name, name_norm) VALUES ('Acme SL', 'acme sl');
       INSERT INTO awards (tender_id, award_key, source, award_date, contract_signed, start_date, winner_company_id)
       SELECT t.id, 'k', 'placsp', '2024-05-01', true, '2024-06-01', c.id FROM tenders t, companies c;`,
    );
    await migrate(handle.db);
    const { rows } = await handle.db.query<{ kind: string; date: string; matches: boolean }>(
      `SELECT kind, date, tsv @@ plainto_tsquery('spanish', 'ciberseguridad') AS matches
         FROM search_rows ORDER BY kind`,
    );
    expect(rows).toEqual([
      { kind: "award", date: "2024-05-01", matches: true },
      { kind: "contract", date: "2024-06-01", matches: true },
      { kind: "tender", date: "2024-03-01", matches: true },
    ]);
    // 0025: the rows built before it carry their date terms and are counted per quarter.
    const { rows: terms } = await handle.db.query<{ kind: string; year: boolean; quarter: boolean }>(
      `SELECT kind, tsv @@ ('''~' || kind || '2024''')::tsquery AS year,
              tsv @@ ('''~' || kind || '2024q' || extract(quarter FROM date) || '''')::tsquery AS quarter
         FROM search_rows ORDER BY kind`,
    );
    expect(terms.every((r) => r.year && r.quarter)).toBe(true);
    const { rows: counts } = await handle.db.query(
      "SELECT kind, quarter::text, rows::int FROM search_row_quarters ORDER BY kind",
    );
    expect(counts).toEqual([
      { kind: "award", quarter: "2024-04-01", rows: 1 },
      { kind: "contract", quarter: "2024-04-01", rows: 1 },
      { kind: "tender", quarter: "2024-01-01", rows: 1 },
    ]);
    // 0026: the tender row's winner is listed, dated as the row.
    const { rows: winners } = await handle.db.query(
      `SELECT w.date::text AS date, w.tender_id = t.id AS tender, w.company_id = c.id AS company
         FROM search_tender_winners w, tenders t, companies c`,
    );
    expect(winners).toEqual([{ date: "2024-03-01", tender: true, company: true }]);
  });

  it("fills the opportunity profile of the company aggregates that exist before it (0027)", async () => {
    handle = await createEmptyDb();
    const migrations = loadMigrations();
    const before = migrations.findIndex((m) => m.name === "company_opportunity_profile");
    expect(before).toBeGreaterThan(0);
    await migrate(handle.db, migrations.slice(0, before));
    // Acme's awards: buyers Dos and Uno (listed by id: Uno, Dos); CPVs 72212000-2 (twice) and 48000000, listed as
    // 8 digits; values 100 EUR, 300 EUR, a 900 EUR ceiling and 500 USD, so the median of the counted values
    // (100, 300) is 200. The superseded award (buyer Tres, CPV 30000000) counts for nothing.
    await handle.db.exec(
      `INSERT INTO buyers (name, name_norm) VALUES ('Uno', 'uno'), ('Dos', 'dos'), ('Tres', 'tres');
       INSERT INTO companies (name, name_norm) VALUES ('Acme SL', 'acme sl');
       INSERT INTO tenders (source, source_ref, title, upstream_updated, raw_hash)
       VALUES ('placsp', 'old-1', 'Servicio', now(), 'h');
       INSERT INTO awards (tender_id, award_key, source, winner_company_id, buyer_id, cpv, value, currency,
                           value_is_ceiling, superseded)
       SELECT t.id, v.k, 'placsp', c.id, b.id, v.cpv, v.value, v.currency, v.ceiling, v.superseded
         FROM tenders t, companies c,
              (VALUES ('a', 'Dos', '72212000-2', 100, 'EUR', false, false),
                      ('b', 'Uno', '72212000-2', 300, 'EUR', false, false),
                      ('c', 'Dos', '48000000', 900, 'EUR', true, false),
                      ('d', 'Uno', NULL, 500, 'USD', false, false),
                      ('e', 'Tres', '30000000', 1, 'EUR', false, true)) AS v (k, buyer, cpv, value, currency,
                                                                         ceiling, superseded)
         JOIN buyers b ON b.name = v.buyer;
       INSERT INTO company_stats (company_id, wins, ceilings_excluded, top_cpvs, top_buyers)
       SELECT id, 4, 1, '[]', '[]' FROM companies;`,
    );
    await migrate(handle.db);
    const { rows } = await handle.db.query(
      `SELECT (SELECT array_agg(b.name ORDER BY u.n) FROM unnest(s.profile_buyers) WITH ORDINALITY AS u (id, n)
                JOIN buyers b ON b.id = u.id) AS buyers,
              s.profile_cpvs AS cpvs, s.profile_median_value AS median
         FROM company_stats s`,
    );
    expect(rows).toEqual([{ buyers: ["Uno", "Dos"], cpvs: ["48000000", "72212000"], median: 200 }]);
  });

  it("keeps the text vectors of search rows in the row, before it and after it (0028)", async () => {
    handle = await createEmptyDb();
    const db = handle.db;
    const migrations = loadMigrations();
    const before = migrations.findIndex((m) => m.name === "search_rows_inline_vectors");
    expect(before).toBeGreaterThan(0);
    await migrate(db, migrations.slice(0, before));
    // A description of 400 distinct invented words: a vector of several kB, which PostgreSQL moves out of the row.
    const insertTender = (ref: string) =>
      db.query(
        `INSERT INTO tenders (source, source_ref, title, description, publication_date, upstream_updated, raw_hash)
         SELECT 'placsp', $1, 'Servicio de ciberseguridad',
                string_agg('zq' || translate(lpad(i::text, 4, '0'), '0123456789', 'bcdfghjklm'), ' '),
                '2024-03-01', now(), 'h'
           FROM generate_series(1, 400) AS i`,
        [ref],
      );
    const outOfLine = async () => {
      const { rows } = await db.query<{ toast: string }>(
        "SELECT reltoastrelid::regclass::text AS toast FROM pg_class WHERE relname = 'search_rows'",
      );
      const { rows: chunks } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${rows[0]?.toast}`,
      );
      return chunks[0]?.n;
    };
    const vectors = async () =>
      (await db.query<{ tsv: string }>("SELECT tsv::text AS tsv FROM search_rows ORDER BY id")).rows;
    await insertTender("old-1");
    const { rows: size } = await db.query<{ bytes: number }>(
      "SELECT pg_column_size(tsv)::int AS bytes FROM search_rows",
    );
    expect(size[0]?.bytes).toBeGreaterThan(2500);
    expect(await outOfLine()).toBeGreaterThan(0); // stored out of line before the migration
    const old = await vectors();

    await migrate(db);
    expect(await outOfLine()).toBe(0);
    expect(await vectors()).toEqual(old);
    await insertTender("new-1");
    expect(await outOfLine()).toBe(0);
    const { rows: found } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM search_rows WHERE tsv @@ plainto_tsquery('spanish', 'ciberseguridad zqbbbc')",
    );
    expect(found[0]?.n).toBe(2);
    const { rows: counted } = await db.query("SELECT kind, rows::int FROM search_row_quarters");
    expect(counted).toEqual([{ kind: "tender", rows: 2 }]);
  });

  it("limits the pending list of every GIN index of search_rows to 512 kB (0029)", async () => {
    handle = await createTestDb();
    const { rows } = await handle.db.query<{ index: string; options: string[] | null }>(
      `SELECT c.relname AS index, c.reloptions AS options
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_am am ON am.oid = c.relam
        WHERE i.indrelid = 'search_rows'::regclass AND am.amname = 'gin'
        ORDER BY 1`,
    );
    expect(rows.map((r) => r.index)).toEqual([
      "search_rows_award_cpv_idx",
      "search_rows_award_tsv_idx",
      "search_rows_contract_cpv_idx",
      "search_rows_contract_tsv_idx",
      "search_rows_tender_companies_idx",
      "search_rows_tender_cpv_idx",
      "search_rows_tender_tsv_idx",
    ]);
    for (const row of rows) {
      expect(row.options ?? [], row.index).toContain("gin_pending_list_limit=512");
    }
  });

  it("leaves the payload columns of signals and aggregates out of ANALYZE, and nothing else (0031)", async () => {
    handle = await createTestDb();
    const { rows } = await handle.db.query<{ column: string }>(
      `SELECT c.relname || '.' || a.attname AS column
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
          AND a.attstattarget = 0
        ORDER BY 1`,
    );
    expect(rows.map((r) => r.column)).toEqual([
      "buyer_stats.recurrence",
      "company_stats.profile_buyers",
      "company_stats.profile_cpvs",
      "company_stats.top_buyers",
      "company_stats.top_cpvs",
      "renewal_signals.basis",
      "renewal_signals.content_hash",
      "renewal_signals.evidence_tender_ids",
    ]);
  });

  it("has autovacuum vacuum the search relations after every 1,000 inserted rows (0030)", async () => {
    handle = await createTestDb();
    const { rows } = await handle.db.query<{ name: string; options: string[] | null }>(
      `SELECT relname AS name, reloptions AS options FROM pg_class
        WHERE relname IN ('search_rows', 'search_tender_winners') AND relkind = 'r' ORDER BY 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(["search_rows", "search_tender_winners"]);
    for (const row of rows) {
      expect(row.options ?? [], row.name).toEqual(
        expect.arrayContaining([
          "autovacuum_vacuum_insert_threshold=1000",
          "autovacuum_vacuum_insert_scale_factor=0",
        ]),
      );
    }
  });

  // The pending list's size is read from the index's metapage through pageinspect, which the embedded engine
  // does not load; on PGlite the test above checks the setting.
  it.skipIf(TEST_ENGINE === "pglite")(
    "keeps a tender text index's pending list small while search rows are written (0029, PostgreSQL)",
    async () => {
      handle = await createTestDb();
      const db = handle.db;
      await db.exec("CREATE EXTENSION IF NOT EXISTS pageinspect");
      // 150 tenders of 400 distinct invented words each: about 300 pages of pending index entries, which stay
      // pending under the default limit of 4 MB (measured without 0029: 300), while a 512 kB limit (about 64 pages)
      // makes the writer merge them as they pass it (measured: 36 left).
      await db.query(
        `INSERT INTO tenders (source, source_ref, title, description, publication_date, upstream_updated, raw_hash)
         SELECT 'placsp', 'ref-' || t, 'Servicio de mantenimiento',
                (SELECT string_agg('zq' || translate(lpad((t * 400 + i)::text, 6, '0'), '0123456789', 'bcdfghjklm'), ' ')
                   FROM generate_series(1, 400) AS i),
                '2024-03-01', now(), 'h'
           FROM generate_series(1, 150) AS t`,
      );
      const { rows } = await db.query<{ pending: number }>(
        "SELECT n_pending_pages::int AS pending FROM gin_metapage_info(get_raw_page('search_rows_tender_tsv_idx', 0))",
      );
      expect(rows[0]?.pending).toBeLessThanOrEqual(70);
      const { rows: found } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM search_rows
          WHERE kind = 'tender' AND tsv @@ plainto_tsquery('spanish', 'mantenimiento')`,
      );
      expect(found[0]?.n).toBe(150);
    },
  );

  it("indexes Spanish full text over unaccented title and description, and CPV prefixes", async () => {
    handle = await createTestDb(); // the run's template: migrated by this same code in the global setup
    await handle.db.query(
      `INSERT INTO tenders (source, source_ref, title, description, cpv_all, upstream_updated, raw_hash)
       VALUES ('placsp', 'ref-1', 'Servicios de ciberseguridad para TELEFÓNICA', 'Mantenimiento evolutivo', $1, now(), 'h')`,
      [["72313000", "48000000"]],
    );
    const match = async (q: string) => {
      const { rows } = (await handle?.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM tenders WHERE tsv @@ plainto_tsquery('spanish', immutable_unaccent($1))",
        [q],
      )) ?? { rows: [] };
      return rows[0]?.n;
    };
    expect(await match("telefonica")).toBe(1); // accent- and case-insensitive
    expect(await match("servicio")).toBe(1); // stemmed
    expect(await match("mantenimientos evolutivos")).toBe(1); // description is indexed too
    expect(await match("hardware")).toBe(0);
    const { rows } = await handle.db.query<{ p: string[] }>("SELECT cpv_prefixes AS p FROM tenders");
    expect(rows[0]?.p).toContain("72");
    expect(rows[0]?.p).toContain("7231");
    expect(rows[0]?.p).toContain("48000000");
    expect(rows[0]?.p).not.toContain("7");
  });
});
