import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPgliteDb, type Db } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createTestDb } from "./db.ts";

/**
 * A database a spawned process can open: on PostgreSQL this file's own database (by URL); on PGlite a data
 * directory, which only one process may hold at a time, so the test seeds it and closes it before spawning.
 */
export interface ServerDatabase {
  env: Record<string, string>;
  /** Runs `fn` with the database open in this process (PGlite: only while no server holds the directory). */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  destroy(): Promise<void>;
}

export async function createServerDatabase(): Promise<ServerDatabase> {
  const handle = await createTestDb();
  if (handle.url) {
    return {
      env: { DATABASE_URL: handle.url },
      withDb: (fn) => fn(handle.db),
      destroy: () => handle.destroy(),
    };
  }
  await handle.destroy();
  const dataDir = mkdtempSync(join(tmpdir(), "pi-e2e-"));
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
