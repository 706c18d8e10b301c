import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { createPgliteDb, type Db } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createTestDb, pgliteImage } from "./db.ts";

/**
 * A database a spawned process can open: on PostgreSQL this file's own database (by URL); on PGlite a data
 * directory, which only one process may hold at a time, so the test seeds it and closes it before spawning.
 * The directory starts as a copy of the run's migrated template (1.6 s, where initdb and every migration take
 * about 12 s); `migrate` still runs on each open, and applies nothing unless a test rolled the schema back.
 */
export interface ServerDatabase {
  env: Record<string, string>;
  /** Runs `fn` with the database open in this process (PGlite: only while no server holds the directory). */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  destroy(): Promise<void>;
}

export async function createServerDatabase(): Promise<ServerDatabase> {
  if (inject("template").engine === "postgres") {
    const handle = await createTestDb();
    if (!handle.url) {
      // An empty DATABASE_URL would make the spawned server open PGlite instead, and the test pass on the wrong engine.
      throw new Error("createServerDatabase: the PostgreSQL test database has no URL");
    }
    return {
      env: { DATABASE_URL: handle.url },
      withDb: (fn) => fn(handle.db),
      destroy: () => handle.destroy(),
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), "pi-e2e-"));
  await seedDataDir(dataDir);
  return {
    env: { DATA_DIR: dataDir },
    async withDb(fn) {
      const db = await createPgliteDb({ dataDir });
      try {
        await migrate(db);
        return await fn(db);
      } finally {
        await db.close();
      }
    },
    async destroy() {},
  };
}

/** Fills an empty PGlite data directory with the run's migrated template (PGlite runs only), and closes it. */
export async function seedDataDir(dataDir: string): Promise<void> {
  const db = await createPgliteDb({ dataDir, loadDataDir: await pgliteImage("migrated") });
  await db.close();
}
