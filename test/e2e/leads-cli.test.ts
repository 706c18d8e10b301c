import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEntry } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

describe("npm run cli -- leads / retention", () => {
  let database: ServerDatabase;
  let leadId = 0;
  beforeAll(async () => {
    database = await createServerDatabase();
    leadId = await database.withDb(async (db) => {
      await db.query(
        `INSERT INTO leads (email, status, status_changed_at) VALUES
           ('old-lost@example.com', 'lost', now() - interval '181 days'),
           ('old-new@example.com', 'new', now() - interval '400 days')`,
      );
      const { rows } = await db.query<{ id: number }>(
        "INSERT INTO leads (email) VALUES ('fresh@example.com') RETURNING id",
      );
      return rows[0]?.id ?? 0;
    });
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it("leads set-status moves a lead and prints it", async () => {
    const { code, stdout } = await runEntry(
      "src/cli.ts",
      ["leads", "set-status", String(leadId), "contacted"],
      database.env,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      command: "leads set-status",
      lead: { id: leadId, email: "fresh@example.com", status: "contacted" },
    });
  });

  it("explains bad arguments (exit 2) and unknown leads (exit 1, one line)", async () => {
    const bad = await runEntry("src/cli.ts", ["leads", "set-status", String(leadId), "won"], database.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: <status> must be one of new, contacted, used, paid, lost/);
    const missing = await runEntry("src/cli.ts", ["leads", "set-status", "999999", "paid"], database.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split("\n")).toEqual(["error: No lead 999999."]);
  });

  it("retention purges what the rule says and prints the count", async () => {
    const { code, stdout } = await runEntry("src/cli.ts", ["retention"], database.env);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ command: "retention", purged: 1 });
    const emails = await database.withDb(async (db) => {
      const { rows } = await db.query<{ email: string }>("SELECT email FROM leads ORDER BY email");
      return rows.map((r) => r.email);
    });
    expect(emails).toEqual(["fresh@example.com", "old-new@example.com"]);
  });
});
