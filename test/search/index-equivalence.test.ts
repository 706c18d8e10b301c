import { beforeAll, describe, expect, it } from "vitest";
import { searchDataVersion } from "../../src/db/queries/search-index.ts";
import type { DomainContext } from "../../src/domain/context.ts";
import { SearchIndexHolder } from "../../src/domain/search/index/index-holder.ts";
import { type SearchInput, searchNotices } from "../../src/domain/search/search-notices.ts";
import { seedSynthetic } from "../../src/ingest/synthetic/seed.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { AGGREGATED, ingestPage, LIFECYCLE, TWO_ENTRIES } from "../helpers/placsp.ts";

/**
 * The in-memory index must answer every search exactly as SQL does: same rows in the same order, same total.
 * A synthetic corpus (real pipeline) plus the real fixtures, with some procedures marked as linked (their
 * awards superseded) and some dates removed, is searched with a few hundred generated queries mixing every
 * filter, kind and paging, each answered once by the index and once by SQL.
 */
const t = useTestDb();
const log = createLogger("silent");
let holder: SearchIndexHolder;

/** Deterministic pseudo-random choices (the queries are the same on every run). */
function rng(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return {
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
  };
}

interface Vocabulary {
  words: string[];
  /** Several words of one title: texts that match, with words occurring different numbers of times. */
  phrases: string[];
  cpvs: string[];
  regions: string[];
  buyers: string[];
  companies: string[];
  dates: string[];
}

let vocabulary: Vocabulary;

beforeAll(async () => {
  await seedSynthetic(
    { db: t.db, log, now: () => new Date() },
    {
      entries: 400,
      seed: 11,
      outDir: null,
      http: { userAgent: "test", timeoutMs: 5_000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    },
  );
  await ingestPage(t.db, { file: LIFECYCLE });
  await ingestPage(t.db, { file: TWO_ENTRIES });
  await ingestPage(t.db, { file: AGGREGATED }, { feed: "1044" });
  // Shapes the synthetic feed does not produce on its own: words repeated a varying number of times, the title's
  // first word more often than the others (so ranks differ, also between words of one notice), procedures linked to another (their tender and awards leave search), unknown dates (listed last).
  await t.db.exec(`
    UPDATE tenders SET description = repeat(title || '. ', (id % 4)::int) || repeat(split_part(title, ' ', 1) || ' ', (id % 5)::int)
     WHERE id % 3 <> 0;
    UPDATE tenders SET linked_to = id - 1 WHERE id % 23 = 0;
    UPDATE awards SET superseded = true WHERE tender_id IN (SELECT id FROM tenders WHERE linked_to IS NOT NULL);
    UPDATE awards SET award_date = NULL WHERE id % 13 = 0;
    UPDATE awards SET start_date = NULL WHERE id % 11 = 0;
    UPDATE tenders SET publication_date = NULL WHERE id % 17 = 0;
  `);
  const one = async <T>(sql: string) => (await t.db.query<T>(sql)).rows;
  const titles = await one<{ title: string }>("SELECT title FROM tenders WHERE title IS NOT NULL LIMIT 300");
  const words = [
    ...new Set(titles.flatMap((r) => r.title.split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 2)),
  ];
  vocabulary = {
    words: [...words, "de", "la", "zzyzx", "INFORMÁTICOS", "servicios", "Mantenimiento"],
    phrases: titles.map((r) => {
      const parts = r.title.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 3);
      return [parts[0], parts[parts.length - 1], parts[1]].slice(0, 1 + (r.title.length % 3)).join(" ");
    }),
    cpvs: [
      ...new Set(
        (await one<{ code: string }>("SELECT DISTINCT unnest(cpv_all) AS code FROM tenders")).flatMap((r) => [
          r.code.slice(0, 2),
          r.code.slice(0, 3),
          r.code.slice(0, 5),
          r.code,
        ]),
      ),
      "99",
      "72000000-5",
    ],
    regions: [
      ...new Set(
        (await one<{ nuts: string }>("SELECT DISTINCT nuts FROM tenders WHERE nuts IS NOT NULL")).flatMap(
          (r) => [r.nuts.slice(0, 2), r.nuts.slice(0, 3), r.nuts.toLowerCase()],
        ),
      ),
      "ZZ",
    ],
    buyers: (await one<{ name: string }>("SELECT name FROM buyers ORDER BY id LIMIT 40")).map((r) =>
      r.name.split(" ").slice(0, 2).join(" "),
    ),
    companies: (await one<{ name: string }>("SELECT name FROM companies ORDER BY id LIMIT 40")).map((r) =>
      r.name.slice(0, 8),
    ),
    dates: (
      await one<{ d: string }>(
        "SELECT DISTINCT award_date::text AS d FROM awards WHERE award_date IS NOT NULL ORDER BY 1",
      )
    ).map((r) => r.d),
  };
  holder = new SearchIndexHolder({ db: t.db, log });
  await holder.refresh();
});

function generateQueries(count: number): SearchInput[] {
  const r = rng(2026);
  const queries: SearchInput[] = [];
  for (let i = 0; i < count; i++) {
    const input: SearchInput = {
      type: r.pick(["award", "award", "tender", "contract"] as const),
      page: r.chance(0.7) ? 1 : r.int(2, 12),
      size: r.pick([1, 5, 20, 100]),
    };
    if (r.chance(0.5)) {
      const n = r.int(1, 3);
      input.q = r.chance(0.4)
        ? r.pick(vocabulary.phrases)
        : Array.from({ length: n }, () => r.pick(vocabulary.words)).join(r.pick([" ", " & ", ", "]));
    }
    if (r.chance(0.3)) {
      input.cpv = r.pick(vocabulary.cpvs);
    }
    if (r.chance(0.2)) {
      input.region = r.pick(vocabulary.regions);
    }
    if (r.chance(0.15)) {
      input.buyer = r.pick(vocabulary.buyers);
    }
    if (r.chance(0.15)) {
      input.company = r.pick(vocabulary.companies);
    }
    if (r.chance(0.25)) {
      const a = r.pick(vocabulary.dates);
      const b = r.pick(vocabulary.dates);
      const [from, to] = a < b ? [a, b] : [b, a];
      if (r.chance(0.7)) {
        input.from = from;
      }
      if (r.chance(0.7)) {
        input.to = to;
      }
    }
    queries.push(input);
  }
  return queries;
}

describe("search index", () => {
  it("holds the whole corpus", async () => {
    const status = holder.status();
    const counts = (
      await t.db.query<{ tenders: number; awards: number }>(
        "SELECT (SELECT count(*)::int FROM tenders) AS tenders, (SELECT count(*)::int FROM awards) AS awards",
      )
    ).rows[0];
    expect(status?.version).toBe(await searchDataVersion(t.db));
    expect(status?.stats).toMatchObject({
      tenders: counts?.tenders,
      awards: counts?.awards,
      awardsWithoutTender: 0,
    });
    expect(counts?.awards).toBeGreaterThan(300);
  });

  it("answers generated searches exactly as SQL does (rows, order, total)", async () => {
    const sql: DomainContext = { db: t.db, log, now: () => new Date() };
    const indexed: DomainContext = { ...sql, searchIndex: holder };
    let nonEmpty = 0;
    let multiPage = 0;
    for (const input of generateQueries(400)) {
      const expected = await searchNotices({ ctx: sql, input });
      const actual = await searchNotices({ ctx: indexed, input });
      const label = JSON.stringify(input);
      expect(expected.answeredFrom, label).toBe("sql");
      if (actual.total > 0 || expected.total > 0) {
        expect(actual.answeredFrom, label).toBe("index");
      }
      expect(actual.total, label).toBe(expected.total);
      expect(
        actual.rows.map((row) => row.id),
        label,
      ).toEqual(expected.rows.map((row) => row.id));
      expect(actual.rows, label).toEqual(expected.rows);
      nonEmpty += expected.rows.length > 0 ? 1 : 0;
      multiPage += expected.total > input.size ? 1 : 0;
    }
    // The generated mix really exercises the engines: most searches find rows, many span several pages.
    expect(nonEmpty).toBeGreaterThan(150);
    expect(multiPage).toBeGreaterThan(80);
  });

  it("walks every page of a broad ranked search without repeating or missing a row", async () => {
    const ctx: DomainContext = { db: t.db, log, now: () => new Date(), searchIndex: holder };
    const first = await searchNotices({ ctx, input: { q: "servicio", type: "award", page: 1, size: 100 } });
    // Ranks differ (the word occurs up to 4 times in a notice), so this walks a ranked order, not a date order.
    expect(first.rows[0]?.date).not.toBe(
      first.rows
        .map((r) => r.date)
        .sort()
        .reverse()[0],
    );
    const seen: number[] = [];
    for (let page = 1; (page - 1) * 7 < first.total; page++) {
      const result = await searchNotices({ ctx, input: { q: "servicio", type: "award", page, size: 7 } });
      expect(result.answeredFrom).toBe("index");
      seen.push(...result.rows.map((row) => row.id));
    }
    expect(first.total).toBeGreaterThan(50);
    expect(seen).toHaveLength(first.total);
    expect(new Set(seen).size).toBe(first.total);
  });
});
