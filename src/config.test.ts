import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, ConfigSchema, describeConfig, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("applies the documented defaults to an empty environment", () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.DATA_DIR).toBe("./data");
    expect(config.PAYMENTS_MODE).toBe("dev");
    expect(config.MOR_PRICE_MONTHLY_CENTS).toBe(2900);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it("treats an empty variable as unset", () => {
    expect(loadConfig({ PORT: "", PAYMENTS_MODE: "" }).PORT).toBe(8080);
  });

  it.each([
    ["PAYMENTS_MODE", "foo", /^PAYMENTS_MODE: invalid value \(got "foo"\); allowed: dev \| x402$/],
    ["PORT", "http", /^PORT: .*\(got "http"\)$/],
    ["PORT", "70000", /^PORT: .*65535.*\(got "70000"\)$/],
    [
      "DATABASE_URL",
      "mysql://x",
      /^DATABASE_URL: must start with postgres:\/\/ or postgresql:\/\/ \(got "mysql:\/\/x"\)$/,
    ],
    ["MOR_PRICE_MONTHLY_CENTS", "29.5", /^MOR_PRICE_MONTHLY_CENTS: .*\(got "29.5"\)$/],
  ])("rejects %s=%s with one line naming the variable", (name, value, pattern) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(pattern);
    expect(message).not.toContain("\n");
  });

  it("accepts a read replica only beside a primary PostgreSQL", () => {
    const replica = "postgres://reader@10.0.0.2:5432/pi";
    expect(() => loadConfig({ DATABASE_READ_URL: replica })).toThrow(
      /^DATABASE_READ_URL: requires DATABASE_URL/,
    );
    const config = loadConfig({ DATABASE_URL: "postgres://127.0.0.1/pi", DATABASE_READ_URL: replica });
    expect(config.DATABASE_READ_URL).toBe(replica);
  });

  it("refuses the test-only delay hook unless NODE_ENV=test", () => {
    expect(() => loadConfig({ TEST_PAID_DELAY_MAX_MS: "5000" })).toThrow(
      /^TEST_PAID_DELAY_MAX_MS: a test hook, accepted only with NODE_ENV=test$/,
    );
    expect(() => loadConfig({ TEST_PAID_DELAY_MAX_MS: "5000", NODE_ENV: "production" })).toThrow(ConfigError);
    expect(loadConfig({ TEST_PAID_DELAY_MAX_MS: "5000", NODE_ENV: "test" }).TEST_PAID_DELAY_MAX_MS).toBe(
      5000,
    );
    expect(loadConfig({}).TEST_PAID_DELAY_MAX_MS).toBeUndefined();
  });

  it("takes INGEST_ROLE auto (default), always or never", () => {
    expect(loadConfig({}).INGEST_ROLE).toBe("auto");
    expect(loadConfig({ INGEST_ROLE: "never" }).INGEST_ROLE).toBe("never");
    expect(() => loadConfig({ INGEST_ROLE: "leader" })).toThrow(
      /^INGEST_ROLE: invalid value \(got "leader"\); allowed: auto \| always \| never$/,
    );
  });

  it("is documented variable by variable in the README configuration table", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    for (const { name, defaultValue } of describeConfig()) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${name}\``));
      expect(row, `README row for ${name}`).toBeDefined();
      expect(row).toContain(defaultValue === "(unset)" ? "(unset)" : `\`${defaultValue}\``);
    }
    expect(Object.keys(ConfigSchema.shape).length).toBe(describeConfig().length);
  });
});
