import { describe, expect, it } from "vitest";
import {
  forEachTsvectorLexeme,
  orQueryText,
  parseTsqueryText,
  rankOrder,
  textRank,
} from "../../src/domain/search/index/text.ts";
import { useTestDb } from "../helpers/db.ts";

/**
 * The index reads tsvectors and tsqueries in their text form and computes ts_rank in JavaScript; each must
 * agree with PostgreSQL itself.
 */
const t = useTestDb();

function lexemesOf(text: string): [string, number][] {
  const out: [string, number][] = [];
  forEachTsvectorLexeme(text, (lexeme, occurrences) => out.push([lexeme, occurrences]));
  return out;
}

describe("tsvector text", () => {
  it("reads lexemes and occurrence counts exactly as unnest() sees them, escapes included", async () => {
    const documents = [
      "Servicio de mantenimiento del servicio de correo; servicios y más SERVICIOS",
      "Adquisición de licencias Microsoft 365 (E3) para 1.500 puestos — año 2025/2026",
      "e-commerce, ciber-seguridad & back-up: l'école d'été",
      "",
    ];
    const vectors = [
      ...documents.map((d) => ({ sql: "to_tsvector('spanish', immutable_unaccent($1))", param: d })),
      // Lexemes with a quote, a backslash and a space, positions with weights, and a stripped vector.
      { sql: "$1::tsvector", param: String.raw`'it''s':1,3A 'back\\slash':2B 'two words':4 plain` },
      { sql: "strip($1::tsvector)", param: "'a':1,2 'b':3" },
    ];
    for (const { sql, param } of vectors) {
      const { rows } = await t.db.query<{ text: string; lexeme: string | null; n: number | null }>(
        `SELECT v::text AS text, u.lexeme, coalesce(cardinality(u.positions), 1) AS n
           FROM (SELECT ${sql} AS v) AS x LEFT JOIN LATERAL unnest(x.v) AS u ON true`,
        [param],
      );
      const expected = rows.filter((r) => r.lexeme !== null).map((r) => [r.lexeme, r.n]);
      expect(lexemesOf(rows[0]?.text ?? ""), param).toEqual(expected);
    }
  });

  it("counts the positions PostgreSQL keeps for a very frequent word (it caps them)", async () => {
    const { rows } = await t.db.query<{ text: string; n: number }>(
      `SELECT v::text AS text, (SELECT cardinality(positions) FROM unnest(v)) AS n
         FROM to_tsvector('spanish', repeat('red ', 300)) AS v`,
    );
    expect(rows[0]?.n).toBeLessThan(300);
    expect(lexemesOf(rows[0]?.text ?? "")).toEqual([["red", rows[0]?.n]]);
  });
});

describe("tsquery text", () => {
  it("reads plainto_tsquery's words (the text's lexemes); operators typed by users stay words", async () => {
    const cases: [string, number][] = [
      ["mantenimiento de software", 2],
      ['"filmación" & !benidorm | (fest:*', 3],
      ["servicio servicios SERVICIO", 1],
      ["l'école d'été", 4],
      ["de la el", 0],
    ];
    for (const [q, count] of cases) {
      const { rows } = await t.db.query<{ query: string; lexemes: string[] }>(
        `SELECT plainto_tsquery('spanish', immutable_unaccent($1))::text AS query,
                tsvector_to_array(to_tsvector('spanish', immutable_unaccent($1))) AS lexemes`,
        [q],
      );
      const parsed = parseTsqueryText(rows[0]?.query ?? "");
      expect(parsed, q).toEqual({ words: [...(rows[0]?.lexemes ?? [])].sort(), conjunctive: true });
      expect(parsed.words, q).toHaveLength(count);
    }
  });

  it("marks anything but a plain conjunction, which the index leaves to SQL", async () => {
    for (const query of ["a | b", "!a & b", "a <-> b", "a:*", "'a':B & c", "(a & b) | c"]) {
      const { rows } = await t.db.query<{ text: string }>("SELECT $1::tsquery::text AS text", [query]);
      expect(parseTsqueryText(rows[0]?.text ?? "").conjunctive, query).toBe(false);
    }
    expect(parseTsqueryText("")).toEqual({ words: [], conjunctive: true });
  });
});

describe("text rank", () => {
  /** ts_rank as PostgreSQL computes it for tsvectors (text form) against the words joined by OR, as a float4. */
  async function sqlRanks(vectors: string[], words: string[]): Promise<number[]> {
    const { rows } = await t.db.query<{ rank: number }>(
      `SELECT ts_rank(v::tsvector, $2::tsquery) AS rank
         FROM unnest($1::text[]) WITH ORDINALITY AS x (v, n) ORDER BY n`,
      [vectors, orQueryText(words)],
    );
    return rows.map((r) => Math.fround(r.rank));
  }

  /** A tsvector's text form holding each word at `counts[w]` consecutive positions. */
  function vector(words: string[], counts: number[]): string {
    let position = 0;
    return words
      .map((word, w) => {
        const positions = Array.from({ length: counts[w] as number }, () => ++position);
        return `'${word}':${positions.join(",")}`;
      })
      .join(" ");
  }

  it("equals ts_rank for one word occurring 1 to 255 times", async () => {
    const vectors = Array.from({ length: 255 }, (_, i) => vector(["red"], [i + 1]));
    const expected = await sqlRanks(vectors, ["red"]);
    expect(vectors.map((_, i) => textRank([i + 1]))).toEqual(expected);
    // More occurrences rank higher, with diminishing returns.
    expect(textRank([2])).toBeGreaterThan(textRank([1]));
    expect(textRank([2]) - textRank([1])).toBeGreaterThan(textRank([3]) - textRank([2]));
  });

  it("equals ts_rank for several words in every mix of occurrence counts (float rounding included)", async () => {
    const words = rankOrder(["red", "servici", "softwar", "cabl"]);
    const counts: number[][] = [];
    for (let seed = 1; counts.length < 300; seed++) {
      counts.push(words.map((_, w) => (((seed * (w + 3) * 2654435761) >>> 0) % 40) + 1));
    }
    // Fewer words too: the division by the number of words rounds differently.
    counts.push([1], [3, 1], [255, 255, 255, 255]);
    const ranked = await Promise.all(
      counts.map(
        async (mix) =>
          (await sqlRanks([vector(words.slice(0, mix.length), mix)], words.slice(0, mix.length)))[0],
      ),
    );
    expect(counts.map((mix) => textRank(mix))).toEqual(ranked);
  });

  it("orders words by their bytes, as PostgreSQL sorts query words, and quotes them for a tsquery", async () => {
    expect(rankOrder(["red", "año", "ab", "red", "a"])).toEqual(["a", "ab", "año", "red"]);
    const words = ["it's", String.raw`back\slash`, "plain"];
    const { rows } = await t.db.query<{ text: string }>("SELECT $1::tsquery::text AS text", [
      orQueryText(words),
    ]);
    expect(parseTsqueryText((rows[0]?.text ?? "").replaceAll("|", "&")).words).toEqual(rankOrder(words));
  });
});
