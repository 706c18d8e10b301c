import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/engines.ts";
import { LIFECYCLE } from "../helpers/placsp.ts";
import { runEntry } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

describe("npm run cli", () => {
  let database: ServerDatabase;
  beforeAll(async () => {
    database = await createServerDatabase();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it("migrate applies nothing on a migrated database and says so", async () => {
    await database.withDb(async () => {}); // PGlite: creates and migrates the directory
    const { code, stdout } = await runEntry("src/cli.ts", ["migrate"], database.env);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ command: "migrate", applied: [] });
  });

  it("ingest cpv and ingest nuts load the shared reference files", async () => {
    const cpv = await runEntry(
      "src/cli.ts",
      ["ingest", "cpv", "--source", `${SHARED_DIR}data/cpv/cpv2008.csv`],
      database.env,
    );
    expect(cpv.code).toBe(0);
    expect(JSON.parse(cpv.stdout)).toMatchObject({ command: "ingest cpv", loaded: 9454, skipped: 0 });
    const nuts = await runEntry(
      "src/cli.ts",
      ["ingest", "nuts", "--source", `${SHARED_DIR}data/nuts/nuts.csv`],
      database.env,
    );
    expect(nuts.code).toBe(0);
    expect(JSON.parse(nuts.stdout)).toMatchObject({ loaded: 2121 });
    const count = await database.withDb(async (db) => {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM cpv_codes");
      return rows[0]?.n;
    });
    expect(count).toBe(9454);
  });

  it("explains usage errors with exit code 2", async () => {
    const missing = await runEntry("src/cli.ts", ["ingest", "cpv"], database.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: --source <path\|url> is required/);
    const unknown = await runEntry("src/cli.ts", ["frobnicate"], database.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it("fails with one line when the source cannot be read", async () => {
    const { code, stderr } = await runEntry(
      "src/cli.ts",
      ["ingest", "cpv", "--source", "/nonexistent.csv"],
      database.env,
    );
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("/nonexistent.csv");
  });

  it("signals and backtest-renewals print one JSON line each; a bad date is a usage error", async () => {
    const signals = await runEntry("src/cli.ts", ["signals"], database.env);
    expect(signals.code).toBe(0);
    expect(signals.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(signals.stdout)).toMatchObject({
      command: "signals",
      buyers: 0,
      signals: 0,
      full: true,
    });
    const backtest = await runEntry(
      "src/cli.ts",
      ["backtest-renewals", "--as-of", "2024-06-01", "--as-of", "2023-06-01"],
      database.env,
    );
    expect(backtest.code).toBe(0);
    expect(backtest.stdout.trim().split("\n")).toHaveLength(1);
    const printed = JSON.parse(backtest.stdout);
    expect(printed).toMatchObject({
      command: "backtest-renewals",
      version: 2,
      as_of: ["2023-06-01", "2024-06-01"],
      coverage_end: null,
    });
    expect(printed.rows.at(-1)).toMatchObject({
      signal_type: "all",
      confidence: "all",
      scored: 0,
      hit_rate: null,
    });
    const stored = await database.withDb(async (db) => {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM renewal_backtests");
      return rows[0]?.n;
    });
    expect(stored).toBe(1);
    const bad = await runEntry("src/cli.ts", ["backtest-renewals", "--as-of", "2024-02-30"], database.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"2024-02-30" is not a calendar date');
  });

  it("ingest and inspect print exactly one JSON line on stdout; --pretty indents", async () => {
    const ingest = await runEntry("src/cli.ts", ["ingest", "placsp", "--source", LIFECYCLE], {
      ...database.env,
      LOG_LEVEL: "info",
    });
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(ingest.stdout)).toMatchObject({ command: "ingest placsp", errors: 0 });
    const ref = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996";
    const inspect = await runEntry("src/cli.ts", ["inspect", "tender", ref], database.env);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ data: { source_ref: ref } });
    const pretty = await runEntry("src/cli.ts", ["inspect", "tender", ref, "--pretty"], database.env);
    expect(pretty.stdout.trim().split("\n").length).toBeGreaterThan(10);
    expect(JSON.parse(pretty.stdout)).toEqual(JSON.parse(inspect.stdout));
  });

  it("seed, ingest ted and retention print exactly one JSON line on stdout too", async () => {
    const runs = [
      ["seed", "--synthetic", "3", "--seed", "5"],
      ["ingest", "ted", "--source", `${SHARED_DIR}fixtures/ted`],
      ["retention"],
    ];
    for (const args of runs) {
      const { code, stdout, stderr } = await runEntry("src/cli.ts", args, {
        ...database.env,
        LOG_LEVEL: "info",
      });
      expect(code, `${args.join(" ")}: ${stderr}`).toBe(0);
      expect(stdout.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(JSON.parse(stdout), args.join(" ")).toHaveProperty("command");
    }
  }, 180_000);
});
