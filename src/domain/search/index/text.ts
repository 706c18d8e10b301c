/**
 * Text search in JavaScript as PostgreSQL does it: tsvectors and tsqueries read from their text form (each
 * lexeme quoted, a quote or backslash inside doubled), and the text rank.
 */

/**
 * The text rank, as PostgreSQL computes it: `ts_rank(tsv, query)` where the query is the search's words joined
 * by OR (for one word, exactly ts_rank of the search). With every position of the default weight D, ts_rank's
 * OR branch (calc_rank_or in tsrank.c) adds, per query word present n times, a contribution that depends on n
 * only, in single-precision arithmetic and in the words' byte order, then divides by the number of words.
 * The steps below repeat that arithmetic operation by operation (Math.fround is one single-precision
 * rounding), so the index ranks exactly as SQL does, ties included.
 */
const WEIGHT_D = Math.fround(0.1);
// PostgreSQL keeps at most 255 positions per lexeme; the table covers one more.
const MAX_OCCURRENCES = 256;
const CONTRIBUTIONS: Float64Array = (() => {
  const contributions = new Float64Array(MAX_OCCURRENCES + 1);
  let resj = 0;
  for (let n = 1; n <= MAX_OCCURRENCES; n++) {
    // resj = resj + wpos(post[j]) / ((j + 1) * (j + 1)), all in float
    resj = Math.fround(resj + Math.fround(WEIGHT_D / (n * n)));
    // (wjm + resj - wjm / ((jm + 1) * (jm + 1))) / 1.64493406685, with wjm = 0.1f and jm = 0
    contributions[n] = Math.fround(Math.fround(WEIGHT_D + resj) - WEIGHT_D) / 1.64493406685;
  }
  return contributions;
})();

/** ts_rank of a notice holding the query's words (in `rankOrder`) with these occurrence counts. */
export function textRank(occurrences: ArrayLike<number>): number {
  let rank = 0;
  for (let i = 0; i < occurrences.length; i++) {
    const n = Math.min(occurrences[i] as number, MAX_OCCURRENCES);
    rank = Math.fround(rank + (CONTRIBUTIONS[n] as number));
  }
  return occurrences.length > 0 ? Math.fround(rank / occurrences.length) : 0;
}

/** The order PostgreSQL sorts query words in before ranking: by their UTF-8 bytes. */
export function rankOrder(words: Iterable<string>): string[] {
  return [...new Set(words)]
    .map((word) => ({ word, bytes: Buffer.from(word, "utf8") }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ word }) => word);
}

/** The tsquery text `'a' | 'b'` of the words (no stemming: they are lexemes already). */
export function orQueryText(words: readonly string[]): string {
  return words.map((word) => `'${word.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`).join(" | ");
}

/** Reads a quoted lexeme starting at `text[start] === "'"`; returns it and the index after the closing quote. */
function readQuoted(text: string, start: number): { lexeme: string; end: number } {
  let lexeme = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\") {
      lexeme += text[i + 1] ?? "";
      i += 2;
    } else if (ch === "'") {
      if (text[i + 1] === "'") {
        lexeme += "'";
        i += 2;
      } else {
        return { lexeme, end: i + 1 };
      }
    } else {
      lexeme += ch;
      i += 1;
    }
  }
  throw new Error(`unterminated lexeme in text-search value: ${text.slice(start, start + 40)}`);
}

/** Calls `visit` for each lexeme of a tsvector's text form with its number of positions (1 when stripped). */
export function forEachTsvectorLexeme(
  text: string,
  visit: (lexeme: string, occurrences: number) => void,
): void {
  let i = 0;
  while (i < text.length) {
    if (text[i] === " ") {
      i += 1;
      continue;
    }
    if (text[i] !== "'") {
      throw new Error(`unexpected character in tsvector text at ${i}: ${text.slice(i, i + 40)}`);
    }
    const { lexeme, end } = readQuoted(text, i);
    i = end;
    let occurrences = 1;
    if (text[i] === ":") {
      // Positions: digits with an optional weight letter, separated by commas, up to the next space.
      while (i < text.length && text[i] !== " ") {
        if (text[i] === ",") {
          occurrences += 1;
        }
        i += 1;
      }
    }
    visit(lexeme, occurrences);
  }
}

export interface TextQuery {
  /** The distinct lexemes of the query, in rank order (rankOrder). */
  words: string[];
  /**
   * True when the query is a plain conjunction of lexemes (what plainto_tsquery produces): a notice matches
   * when it holds every word. Anything else (other operators, weights, prefixes) is left to SQL.
   */
  conjunctive: boolean;
}

/** Reads the text form of a tsquery. */
export function parseTsqueryText(text: string): TextQuery {
  const words = new Set<string>();
  let conjunctive = true;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === " " || ch === "&") {
      i += 1;
    } else if (ch === "'") {
      const { lexeme, end } = readQuoted(text, i);
      words.add(lexeme);
      i = end;
      if (text[i] === ":") {
        // A weight restriction or prefix match: not a plain lexeme.
        conjunctive = false;
        while (i < text.length && text[i] !== " ") {
          i += 1;
        }
      }
    } else {
      // |, !, <->, parentheses: not a plain conjunction.
      conjunctive = false;
      i += 1;
    }
  }
  return { words: rankOrder(words), conjunctive };
}
