import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Db } from "./client.ts";

/**
 * Numbered plain-SQL migrations (`NNNN_name.sql`), applied in order inside one transaction that first takes a
 * transaction-scoped advisory lock. Two processes starting at once on one PostgreSQL therefore serialise: the
 * second waits, then finds every migration already in the ledger and does nothing. Applied files are never
 * edited; a schema change is a new file.
 */

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));
// Any constant works; it only has to be the same for every process of this service.
const MIGRATION_LOCK_KEY = 4_242_001;

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => {
      const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
      if (!match) {
        throw new Error(`migration file name must look like 0001_name.sql: ${file}`);
      }
      return { id: Number(match[1]), name: match[2] ?? file, sql: readFileSync(`${dir}/${file}`, "utf8") };
    })
    .sort((a, b) => a.id - b.id);
  migrations.forEach((migration, index) => {
    if (migration.id !== index + 1) {
      throw new Error(
        `migrations must be numbered 1..n without gaps; found ${migration.id} at position ${index + 1}`,
      );
    }
  });
  return migrations;
}

export interface MigrateResult {
  applied: string[];
  total: number;
}

export async function migrate(db: Db, migrations: Migration[] = loadMigrations()): Promise<MigrateResult> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await tx.query<{ id: number }>("SELECT id FROM schema_migrations");
    const done = new Set(rows.map((row) => row.id));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.id)) {
        continue;
      }
      // Ledger row first: should another migrator ever get past the lock, the primary key stops it.
      await tx.query("INSERT INTO schema_migrations (id, name) VALUES ($1, $2)", [
        migration.id,
        migration.name,
      ]);
      await tx.exec(migration.sql);
      applied.push(`${String(migration.id).padStart(4, "0")}_${migration.name}`);
    }
    return { applied, total: migrations.length };
  });
}
