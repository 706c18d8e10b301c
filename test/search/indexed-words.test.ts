import { beforeAll, describe, expect, it } from "vitest";
import {
  MAX_INDEXED_WORDS,
  mayHaveManyWords,
  rarestWords,
  readWordStats,
} from "../../src/db/queries/indexed-words.ts";
import { matchedTenderWindow } from "../../src/db/queries/research.ts";
import { type SearchFilters, type SearchKind, searchPage } from "../../src/db/queries/search.ts";
import { useTestDb } from "../helpers/db.ts";

/**
 * Long queries (db/queries/indexed-words.ts): the index is asked for the query's MAX_INDEXED_WORDS rarest words
 * only and the whole query is tested on the rows found. The answer must be the one of the whole query asked of
 * the index, page by page.
 */
const t = useTestDb();

/** The words a search would ask the index for. */
async function indexedWords(q: string): Promise<string | null> {
  return rarestWords(await readWordStats(t.db, q));
}

// A query of 9 words, one more than the index is asked for. Over tenders g = 1..2,100: "firewall" when g % 7 = 0
// (share 1/7), "ciberseguridad" when g % 5 = 0 (1/5), "nube" when g % 3 = 0 (1/3), "soporte" when g is even (1/2),
// "gestión" unless g % 3 = 1 (2/3), "servicio" unless g % 4 = 3 and "sistema" unless g % 4 = 1 (3/4 each; ties go
// in lexeme order), "datos" unless g % 5 = 1 (4/5), and "plataforma" unless g % 420 = 210 (2,095 of 2,100). The 8
// rarest words are all held by the 10 tenders with g % 210 = 0 (g = 210, 420, ..., 2100); "plataforma", left to be
// tested on the rows, drops g = 210, 630, 1050, 1470 and 1890, so the whole query matches 5 (g = 420, 840, 1260,
// 1680, 2100): the rows the index returns must be tested against every word.
const QUERY = "plataforma datos sistema servicio gestión soporte nube ciberseguridad firewall";

function filters(kind: SearchKind, q: string, extra: Partial<SearchFilters> = {}): SearchFilters {
  const none = { cpvPrefix: null, buyerIds: null, companyIds: null, region: null, from: null, to: null };
  return { kind, q, ...none, limit: 3, offset: 0, ...extra };
}

/** What the index was asked for before the table had statistics. */
let beforeAnalyse: string | null | undefined;

beforeAll(async () => {
  // No ANALYZE but the one below: autovacuum could otherwise analyse the table between the inserts and the check.
  await t.db.query("ALTER TABLE search_rows SET (autovacuum_enabled = false)");
  await t.db.query(
    `INSERT INTO tenders (source, source_ref, title, description, publication_date, cpv_all, nuts, upstream_updated,
                          raw_hash)
     SELECT 'placsp', 'long-' || g, 'Contrato número ' || g,
            concat_ws(' ',
              CASE WHEN g % 420 <> 210 THEN 'plataforma' END,
              CASE WHEN g % 5 <> 1 THEN 'datos' END,
              CASE WHEN g % 4 <> 1 THEN 'sistema' END,
              CASE WHEN g % 4 <> 3 THEN 'servicio' END,
              CASE WHEN g % 3 <> 1 THEN 'gestión' END,
              CASE WHEN g % 2 = 0 THEN 'soporte' END,
              CASE WHEN g % 3 = 0 THEN 'nube' END,
              CASE WHEN g % 5 = 0 THEN 'ciberseguridad' END,
              CASE WHEN g % 7 = 0 THEN 'firewall' END),
            date '2020-01-01' + g, ARRAY[CASE WHEN g % 840 = 0 THEN '48000000' ELSE '72000000' END], 'ES300', now(),
            'h' || g
       FROM generate_series(1, 2100) AS g`,
  );
  await t.db.query(
    `INSERT INTO awards (tender_id, award_key, source, award_date, value, currency)
     SELECT id, 'lot-1', 'placsp', publication_date + 30, 1000, 'EUR' FROM tenders WHERE source_ref LIKE 'long-%'`,
  );
  beforeAnalyse = await indexedWords(QUERY);
  // The rarest words come from the planner's statistics; PostgreSQL's autovacuum keeps them, here it is explicit.
  await t.db.query("ANALYZE search_rows");
}, 120_000);

describe("a long query asks the index for its rarest words only", () => {
  it("asks the index for every word while the table has no statistics (nothing tells which are rare)", () => {
    expect(beforeAnalyse).toBeNull();
  });

  it("picks the MAX_INDEXED_WORDS rarest words, and none for a short query", async () => {
    expect(MAX_INDEXED_WORDS).toBe(8);
    const lexeme = async (word: string) =>
      (await t.db.query<{ q: string }>("SELECT plainto_tsquery('spanish', $1)::text AS q", [word])).rows[0]
        ?.q;
    const rarest = [
      "firewall",
      "ciberseguridad",
      "nube",
      "soporte",
      "gestión",
      "servicio",
      "sistema",
      "datos",
    ];
    const expected = await Promise.all(rarest.map(lexeme));
    expect(await indexedWords(QUERY)).toBe(expected.join(" & "));
    // A word outside the statistics is rarer than any word in them.
    expect((await indexedWords(`zzyzx ${QUERY}`))?.startsWith(`${await lexeme("zzyzx")} & `)).toBe(true);
    const eight = "datos sistema servicio gestión soporte nube ciberseguridad firewall";
    expect(await indexedWords(eight)).toBeNull();
    // Stop words are not words: nine tokens, eight words.
    expect(mayHaveManyWords(`la ${eight}`)).toBe(true);
    expect(await indexedWords(`la ${eight}`)).toBeNull();
    expect(mayHaveManyWords(eight)).toBe(false);
  });

  it("answers as the whole query asked of the index, page by page, on every kind and with filters", async () => {
    const cases: [SearchKind, Partial<SearchFilters>][] = [
      ["tender", {}],
      ["award", {}],
      ["tender", { cpvPrefix: "72" }],
      ["award", { from: "2022-01-01" }],
    ];
    for (const [kind, extra] of cases) {
      const whole: number[] = [];
      const rarest: number[] = [];
      for (let offset = 0; offset < 12; offset += 3) {
        const f = filters(kind, QUERY, { ...extra, offset });
        const a = await searchPage(t.db, f, { indexedWords: false });
        const b = await searchPage(t.db, f);
        expect(b).toEqual(a);
        whole.push(...a.ids);
        rarest.push(...b.ids);
      }
      expect(rarest).toEqual(whole);
    }
    // By hand: g = 420, 840, 1260, 1680, 2100 (the tender of g = 840 and 1680 has CPV 48000000), newest first;
    // the award rows are dated 30 days after, from 2022-01-01 all but g = 420 (tender date 2021-02-24).
    const tenders = await searchPage(t.db, filters("tender", QUERY, { limit: 10 }));
    expect(tenders.matched).toBe(5);
    const refs = await t.db.query<{ source_ref: string }>(
      "SELECT source_ref FROM tenders WHERE id = ANY($1) ORDER BY publication_date DESC",
      [tenders.ids],
    );
    expect(refs.rows.map((r) => r.source_ref)).toEqual([
      "long-2100",
      "long-1680",
      "long-1260",
      "long-840",
      "long-420",
    ]);
    expect((await searchPage(t.db, filters("tender", QUERY, { cpvPrefix: "72", limit: 10 }))).matched).toBe(
      3,
    );
    expect((await searchPage(t.db, filters("award", QUERY, { from: "2022-01-01", limit: 10 }))).matched).toBe(
      4,
    );
  });

  it("gives the research brief the same tenders as the whole query asked of the index", async () => {
    const scope = { q: QUERY, buyerIds: [], companyIds: [], today: "2026-01-01", now: new Date(), limit: 10 };
    const whole = await matchedTenderWindow(t.db, scope, { indexedWords: false });
    expect(whole.ids).toHaveLength(5);
    expect(await matchedTenderWindow(t.db, scope)).toEqual(whole);
  });

  it("reads the statistics once for a long search by words alone (the probe's plan and the words share it)", async () => {
    const statements: string[] = [];
    const db = {
      query: (sql: string, params?: readonly unknown[]) => {
        statements.push(sql);
        return t.db.query(sql, params);
      },
      exec: (sql: string) => t.db.exec(sql),
    };
    const answer = await searchPage(db as typeof t.db, filters("tender", QUERY, { limit: 10 }));
    expect(answer.matched).toBe(5);
    expect(statements.filter((sql) => sql.includes("pg_stats"))).toHaveLength(1);
  });
});
