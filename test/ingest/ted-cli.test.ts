import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEntry } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";
import { TED_FIXTURES } from "../helpers/ted-server.ts";

describe("npm run cli -- ingest ted", () => {
  let database: ServerDatabase;
  beforeAll(async () => {
    database = await createServerDatabase();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it("ingests a directory of notices and prints one summary line", async () => {
    const { code, stdout, stderr } = await runEntry(
      "src/cli.ts",
      ["ingest", "ted", "--source", TED_FIXTURES],
      database.env,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({
      command: "ingest ted",
      source: TED_FIXTURES,
      kind: "dir",
      notices: 10,
      noticesNew: 9,
      noticesUpdated: 1,
      errors: 0,
      checkpoint: null,
    });
    const count = await database.withDb(async (db) => {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM tenders WHERE source = 'ted'",
      );
      return rows[0]?.n;
    });
    expect(count).toBe(9);
  });

  it("explains bad flags with exit code 2", async () => {
    const since = await runEntry("src/cli.ts", ["ingest", "ted", "--since", "2024-02-30"], database.env);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/^error: --since must be a date YYYY-MM-DD/);
    const max = await runEntry(
      "src/cli.ts",
      ["ingest", "ted", "--source", TED_FIXTURES, "--max-notices", "0"],
      database.env,
    );
    expect(max.code).toBe(2);
    expect(max.stderr).toMatch(/^error: --max-notices must be a positive integer/);
  });

  it("fails with one line when the source does not exist", async () => {
    const { code, stderr } = await runEntry(
      "src/cli.ts",
      ["ingest", "ted", "--source", "/nonexistent/202400001.tar.gz"],
      database.env,
    );
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("/nonexistent/202400001.tar.gz");
  });
});
