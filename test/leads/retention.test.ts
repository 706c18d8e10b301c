import { Writable } from "node:stream";
import { pino } from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import type { DomainContext } from "../../src/domain/context.ts";
import { InvalidInputError, NotFoundError } from "../../src/domain/errors.ts";
import { purgeExpiredLeads, setLeadStatus, startRetentionJob } from "../../src/domain/leads/leads.ts";
import { testClock } from "../helpers/app.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";

const t = useTestDb();
const DAY_MS = 86_400_000;
const NOW = new Date("2026-06-01T00:00:00.000Z");

beforeEach(async () => {
  await truncateAll(t.db);
});

function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

function context(now = testClock(NOW)): DomainContext & { lines: Record<string, unknown>[] } {
  const { log, lines } = memoryLog();
  return { db: t.db, log, now, lines };
}

async function insertLead(email: string, status: string, changedDaysAgo: number): Promise<number> {
  const changed = new Date(NOW.getTime() - changedDaysAgo * DAY_MS);
  const { rows } = await t.db.query<{ id: number }>(
    `INSERT INTO leads (email, status, status_changed_at, created_at) VALUES ($1, $2, $3, $3) RETURNING id`,
    [email, status, changed],
  );
  return rows[0]?.id ?? Number.NaN;
}

async function remaining(): Promise<string[]> {
  const { rows } = await t.db.query<{ email: string }>("SELECT email FROM leads ORDER BY email");
  return rows.map((r) => r.email);
}

describe("lead status", () => {
  it("moves a lead to any status and restarts the retention clock only on a change", async () => {
    const now = testClock(NOW);
    const ctx = context(now);
    const id = await insertLead("a@example.com", "new", 10);
    const contacted = await setLeadStatus({ ctx, input: { id, status: "contacted" } });
    expect(contacted).toMatchObject({ id, email: "a@example.com", status: "contacted" });
    expect(contacted.status_changed_at).toBe(NOW.toISOString());
    now.advance(DAY_MS);
    const same = await setLeadStatus({ ctx, input: { id, status: "contacted" } });
    expect(same.status_changed_at).toBe(NOW.toISOString());
    const lost = await setLeadStatus({ ctx, input: { id, status: "lost" } });
    expect(lost.status_changed_at).toBe(new Date(NOW.getTime() + DAY_MS).toISOString());
  });

  it("refuses unknown statuses and unknown leads", async () => {
    const ctx = context();
    const id = await insertLead("b@example.com", "new", 0);
    await expect(setLeadStatus({ ctx, input: { id, status: "won" } })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(setLeadStatus({ ctx, input: { id: id + 1000, status: "paid" } })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe("retention", () => {
  it("purges leads 180 days after they reached contacted, used, paid or lost; keeps new ones", async () => {
    await insertLead("new-old@example.com", "new", 900);
    await insertLead("contacted-181@example.com", "contacted", 181);
    await insertLead("used-180@example.com", "used", 180);
    await insertLead("paid-179@example.com", "paid", 179);
    await insertLead("lost-365@example.com", "lost", 365);
    await insertLead("lost-1@example.com", "lost", 1);
    const ctx = context();
    expect(await purgeExpiredLeads({ ctx })).toEqual({
      purged: 3,
      before: new Date(NOW.getTime() - 180 * DAY_MS).toISOString(),
    });
    expect(await remaining()).toEqual(["lost-1@example.com", "new-old@example.com", "paid-179@example.com"]);
    expect(ctx.lines).toContainEqual(expect.objectContaining({ msg: "lead retention applied", purged: 3 }));
    // A day later the paid lead reaches its 180 days too.
    const later = context(testClock(new Date(NOW.getTime() + DAY_MS)));
    expect((await purgeExpiredLeads({ ctx: later })).purged).toBe(1);
    expect(await remaining()).toEqual(["lost-1@example.com", "new-old@example.com"]);
  });

  it("runs as a periodic job and logs how many leads it removed", async () => {
    await insertLead("stale@example.com", "lost", 200);
    const ctx = context();
    const job = startRetentionJob(ctx, { intervalMs: 50, firstDelayMs: 10 });
    try {
      const deadline = Date.now() + 10_000;
      while (ctx.lines.filter((l) => l.msg === "lead retention applied").length < 2) {
        if (Date.now() > deadline) {
          throw new Error("retention job did not run twice");
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await job.stop();
    }
    const runs = ctx.lines.filter((l) => l.msg === "lead retention applied");
    expect(runs[0]).toMatchObject({ purged: 1 });
    expect(runs[1]).toMatchObject({ purged: 0 });
    expect(await remaining()).toEqual([]);
  });
});
