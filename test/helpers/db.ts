import { readFile } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { createPgDb, createPgliteDb, type Db } from "../../src/db/client.ts";
import { withDatabase } from "./engines.ts";

export interface TestDatabase {
  db: Db;
  /** PostgreSQL only: the URL of this file's own database (for spawned processes). */
  url?: string;
  destroy(): Promise<void>;
}

let counter = 0;

/**
 * One of the run's PGlite images (global-setup.ts): the migrated template, or a just-initialised database. Only
 * when the suite runs on PGlite.
 */
export async function pgliteImage(which: "migrated" | "empty"): Promise<Blob> {
  const template = inject("template");
  if (template.engine !== "pglite") {
    throw new Error("the run's PGlite images exist only when the suite runs on PGlite");
  }
  return new Blob([await readFile(which === "migrated" ? template.imagePath : template.emptyImagePath)]);
}

/** A fresh database holding the migrated schema and nothing else. */
export async function createTestDb(): Promise<TestDatabase> {
  const template = inject("template");
  if (template.engine === "pglite") {
    const db = await createPgliteDb({ loadDataDir: await pgliteImage("migrated") });
    return { db, destroy: () => db.close() };
  }
  const name = `${template.templateDb.replace("pi_tpl_", "pi_t_")}_${process.pid}_${counter++}`;
  await adminQuery(template.adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template.templateDb}`);
  const url = withDatabase(template.adminUrl, name);
  const db = createPgDb(url, { poolSize: 20 });
  return {
    db,
    url,
    async destroy() {
      await db.close();
      await adminQuery(template.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A database with no schema at all (migration tests). */
export async function createEmptyDb(): Promise<TestDatabase> {
  const template = inject("template");
  if (template.engine === "pglite") {
    const db = await createPgliteDb({ loadDataDir: await pgliteImage("empty") });
    return { db, destroy: () => db.close() };
  }
  const name = `${template.templateDb.replace("pi_tpl_", "pi_t_")}_${process.pid}_empty${counter++}`;
  await adminQuery(template.adminUrl, `CREATE DATABASE ${name} TEMPLATE template0`);
  const url = withDatabase(template.adminUrl, name);
  const db = createPgDb(url, { poolSize: 5 });
  return {
    db,
    url,
    async destroy() {
      await db.close();
      await adminQuery(template.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Registers beforeAll/afterAll hooks for one database per test file; read `.db` inside tests. */
export function useTestDb(): { readonly db: Db; readonly handle: TestDatabase } {
  let handle: TestDatabase | undefined;
  beforeAll(async () => {
    handle = await createTestDb();
  });
  afterAll(async () => {
    await handle?.destroy();
  });
  return {
    get db() {
      if (!handle) {
        throw new Error("test database not ready: use it inside a test or hook");
      }
      return handle.db;
    },
    get handle() {
      if (!handle) {
        throw new Error("test database not ready: use it inside a test or hook");
      }
      return handle;
    },
  };
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Empties every data table (keeps the schema and the migration ledger): a clean slate between tests. */
export async function truncateAll(db: Db): Promise<void> {
  const { rows } = await db.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
  );
  await db.exec(`TRUNCATE ${rows.map((r) => r.tablename).join(", ")} RESTART IDENTITY CASCADE`);
}
