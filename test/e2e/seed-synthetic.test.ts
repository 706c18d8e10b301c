import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEntry, spawnEntry, waitForListening } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

/**
 * `npm run cli -- seed --synthetic N` writes and ingests a synthetic corpus; a server in real-payments mode then
 * refuses that database, while dev mode serves it.
 */
describe("seed --synthetic", () => {
  let database: ServerDatabase;
  beforeAll(async () => {
    database = await createServerDatabase();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it("ingests a synthetic corpus through the real pipeline, marked as synthetic", async () => {
    const { code, stdout, stderr } = await runEntry(
      "src/cli.ts",
      ["seed", "--synthetic", "120"],
      database.env,
    );
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout) as {
      written: { entries: number; pages: number };
      ingest: { entriesNew: number; entriesUpdated: number; entriesUnchanged: number; errors: number };
    };
    expect(result.written.entries).toBe(120);
    const { entriesNew, entriesUpdated, entriesUnchanged, errors } = result.ingest;
    expect(entriesNew + entriesUpdated + entriesUnchanged).toBe(120);
    expect(errors).toBe(0);
    const counts = await database.withDb(async (db) => {
      const { rows } = await db.query<{ all: number; synthetic: number }>(
        "SELECT count(*)::int AS all, count(*) FILTER (WHERE is_synthetic)::int AS synthetic FROM tenders",
      );
      return rows[0];
    });
    expect(counts?.all).toBeGreaterThan(0);
    expect(counts?.synthetic).toBe(counts?.all);
  });

  it("is refused by a server taking real payments, and served in dev mode", async () => {
    const x402 = await runEntry("src/main.ts", [], {
      ...database.env,
      PORT: "0",
      HOST: "127.0.0.1",
      INGEST_SCHEDULE: "off",
      PAYMENTS_MODE: "x402",
      X402_PAY_TO: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    });
    expect(x402.code).toBe(1);
    expect(x402.stderr.trim()).toMatch(
      /^start-up refused: refusing to start with PAYMENTS_MODE=x402: the database holds synthetic tenders/,
    );

    const dev = spawnEntry("src/main.ts", [], {
      ...database.env,
      PORT: "0",
      HOST: "127.0.0.1",
      INGEST_SCHEDULE: "off",
    });
    try {
      const port = await waitForListening(dev);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      dev.child.kill("SIGTERM");
      await dev.exited;
    }
  });
});
