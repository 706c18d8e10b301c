import { beforeAll, describe, expect, it } from "vitest";
import { amplify } from "../../bench/amplify.ts";
import { corpusTextStats, formatTextStats, type TextStats } from "../../bench/text-stats.ts";
import { seedSynthetic } from "../../src/ingest/synthetic/seed.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";

/**
 * The benchmark's amplification: copies re-draw their texts (same length and shape, other words), so the
 * amplified corpus keeps the base's per-text statistics while its vocabulary grows.
 */
const t = useTestDb();
let base: TextStats;
let amplified: TextStats;
let baseAwards: number;

beforeAll(async () => {
  await seedSynthetic(
    { db: t.db, log: createLogger("silent"), now: () => new Date() },
    {
      entries: 400,
      seed: 21,
      outDir: null,
      http: { userAgent: "test", timeoutMs: 5_000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    },
  );
  base = await corpusTextStats(t.db);
  baseAwards = (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM awards")).rows[0]?.n ?? 0;
  await amplify(t.db, baseAwards * 4, () => {});
  amplified = await corpusTextStats(t.db);
}, 300_000);

const words = (text: string | null) => (text ?? "").split(" ").length;

describe("amplify", () => {
  it("replicates tenders and awards to the target", async () => {
    const { rows } = await t.db.query<{ tenders: number; awards: number }>(
      "SELECT (SELECT count(*) FROM tenders)::int AS tenders, (SELECT count(*) FROM awards)::int AS awards",
    );
    expect(rows[0]?.tenders).toBe(base.tenders * 4);
    expect(rows[0]?.awards).toBe(baseAwards * 4);
    const tables = await t.db.query("SELECT 1 FROM pg_class WHERE relname LIKE 'amplify_%'");
    expect(tables.rows).toHaveLength(0);
  });

  it("gives each copy its own text of the same shape as its base", async () => {
    const { rows } = await t.db.query<{
      ref: string;
      title: string;
      description: string | null;
      base_title: string;
      base_description: string | null;
    }>(
      `SELECT c.source_ref AS ref, c.title, c.description, b.title AS base_title, b.description AS base_description
         FROM tenders c JOIN tenders b ON c.source_ref LIKE b.source_ref || '~%'
        ORDER BY c.source_ref`,
    );
    expect(rows).toHaveLength(base.tenders * 3);
    let changed = 0;
    for (const row of rows) {
      expect(words(row.title), row.ref).toBe(words(row.base_title));
      expect(row.title.split(" ")[0]).toBe(row.base_title.split(" ")[0]);
      expect(row.description === null).toBe(row.base_description === null);
      expect(words(row.description)).toBe(words(row.base_description));
      if (row.title !== row.base_title || row.description !== row.base_description) {
        changed++;
      }
    }
    expect(changed / rows.length).toBeGreaterThan(0.95);
    // Deterministic: copy k of a tender is a function of the tender and k.
    const again = await t.db.query<{ n: number }>(
      "SELECT count(DISTINCT title)::int AS n FROM tenders WHERE source_ref LIKE '%~1'",
    );
    expect(again.rows[0]?.n).toBeGreaterThan(base.tenders * 0.9);
  });

  it("keeps the per-text statistics and grows the vocabulary", () => {
    expect(amplified.measured).toBe(amplified.tenders);
    expect(amplified.words.mean).toBeCloseTo(base.words.mean, 0);
    expect(amplified.titleWords.mean).toBeCloseTo(base.titleWords.mean, 0);
    expect(amplified.withDescription).toBeCloseTo(base.withDescription, 5);
    expect(Math.abs(amplified.distinctWords.mean - base.distinctWords.mean)).toBeLessThan(2);
    expect(amplified.vocabulary).toBeGreaterThan(base.vocabulary * 1.5);
    expect(amplified.lexemes).toBeGreaterThan(base.lexemes * 1.5);
    expect(formatTextStats(amplified)).toMatch(/^Text of [\d,]+ tenders: words per text /);
  });
});
