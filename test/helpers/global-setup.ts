import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { createPgDb, createPgliteDb } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { TEST_DATABASE_URL, withDatabase } from "./engines.ts";

/**
 * Migrates one template database per test run; each test file then starts from a copy of it (a PostgreSQL
 * `CREATE DATABASE … TEMPLATE`, or a PGlite instance loaded from a data-dir image). Copies are cheap, migrations
 * run once, and no two files share state.
 */

declare module "vitest" {
  export interface ProvidedContext {
    template:
      | { engine: "pglite"; imagePath: string; emptyImagePath: string }
      | { engine: "postgres"; adminUrl: string; templateDb: string };
  }
}

const RUN_ID = `${process.pid}_${Date.now().toString(36)}`;
let cleanup: (() => Promise<void>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  if (TEST_DATABASE_URL) {
    const templateDb = `pi_tpl_${RUN_ID}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${templateDb}`);
    await admin.end();
    const db = createPgDb(withDatabase(TEST_DATABASE_URL, templateDb), { poolSize: 1 });
    await migrate(db);
    await db.close();
    project.provide("template", { engine: "postgres", adminUrl: TEST_DATABASE_URL, templateDb });
    cleanup = () => dropRunDatabases(TEST_DATABASE_URL ?? "", RUN_ID);
    return;
  }
  // Two images: the migrated template, and a freshly initialised database for the migration tests. Both are
  // plain tarballs: a test file loads one in 1.1 s (gzipped: 1.3 s; initdb alone: 2.6 s).
  const db = await createPgliteDb();
  const emptyImagePath = join(tmpdir(), `pi-empty-${RUN_ID}.tar`);
  await writeFile(emptyImagePath, Buffer.from(await (await db.dumpImage({ gzip: false })).arrayBuffer()));
  await migrate(db);
  const imagePath = join(tmpdir(), `pi-template-${RUN_ID}.tar`);
  await writeFile(imagePath, Buffer.from(await (await db.dumpImage({ gzip: false })).arrayBuffer()));
  await db.close();
  project.provide("template", { engine: "pglite", imagePath, emptyImagePath });
  cleanup = () =>
    Promise.all([rm(imagePath, { force: true }), rm(emptyImagePath, { force: true })]).then(() => {});
}

export async function teardown(): Promise<void> {
  await cleanup?.();
}

/** Drops the template and every per-file database this run created (their names carry the run id). */
async function dropRunDatabases(adminUrl: string, runId: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname DESC",
    [`pi\\_%\\_${runId}%`],
  );
  for (const { datname } of rows) {
    await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
  await admin.end();
}
