import type { Queryable } from "../client.ts";
import { spanishTsquery } from "./params.ts";

/**
 * Which of a long query's words the GIN index is asked for (docs/search.md, "Long queries"). A plain-text query is
 * an AND of its words, and GIN intersects the lists of all of them itself: for every row of the rarest word's list
 * it steps through the lists of the others. With many common words that costs more than the rows it saves: at a
 * million awards, 18 words of 9-61 % of the rows took 75-100 ms in the index alone to find 423 rows, and the whole
 * statement 90-106 ms; with the 8 rarest words in the index and every word tested on the rows it returned, 31 ms
 * (4 words: 34 ms, 13 words: 56-70). So only the `MAX_INDEXED_WORDS` rarest words go to the index, and the whole
 * query is tested on the rows it returns: the same rows either way, since every row matching the whole query holds
 * those words. 8, not fewer: a query of up to 8 words is asked as before, so the rule cannot turn a short query of
 * correlated words (which GIN intersects cheaply) into many rows read from the table.
 */
export const MAX_INDEXED_WORDS = 8;

/** The pg_stats rows of the search vector's common lexemes, as `elem (elem, freq)`, for a `WITH` clause. */
export const TSV_ELEM_STATS = `stats AS (
       SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
         FROM pg_stats
        WHERE schemaname = current_schema() AND tablename = 'search_rows' AND attname = 'tsv'
     ),
     elem AS (
       SELECT u.elem, u.freq FROM stats, unnest(stats.elems, stats.freqs) AS u (elem, freq) WHERE u.elem IS NOT NULL
     )`;

/** A quoted lexeme as a tsquery's text writes it ('' for a quote, \\ for a backslash). */
const QUOTED_LEXEME = /'((?:[^'\\]|''|\\.)*)'/g;
/** A tsquery text that is an AND of plain lexemes and nothing else (what plainto_tsquery gives). */
const AND_OF_LEXEMES = /^'(?:[^'\\]|''|\\.)*'(?: & '(?:[^'\\]|''|\\.)*')*$/;

/**
 * Whether `q` may have more words than the index is asked for: counted in its letters and digits, before stop
 * words are dropped, so a query that cannot have more costs no statement.
 */
export function mayHaveManyWords(q: string): boolean {
  return q.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "").length > MAX_INDEXED_WORDS;
}

/** What the statistics say of a query's words: read with the date probe's plan when there is one (date-probe.ts). */
export interface WordStats {
  /** Whether the table has statistics at all (PGlite has none until it is analysed). */
  analysed: boolean;
  /** The query as plainto_tsquery gives it, as text. */
  query: string;
  /** Share of rows holding each of the query's lexemes that the statistics list. */
  shares: Record<string, number>;
}

/**
 * The columns of `WordStats` for the text bound as `param`, in a statement `WITH ${TSV_ELEM_STATS}`.
 */
export function wordStatsColumns(param: string): string {
  return `EXISTS (SELECT 1 FROM stats WHERE elems IS NOT NULL) AS analysed, ${spanishTsquery(param)}::text AS query,
            coalesce((SELECT json_object_agg(e.elem, e.freq)
                        FROM elem e
                       WHERE e.elem = ANY (tsvector_to_array(to_tsvector('spanish', immutable_unaccent(${param}))))),
                     '{}') AS shares`;
}

/** The statistics of the query's words, in one statement of their own (`wordStatsColumns`). */
export async function readWordStats(db: Queryable, q: string): Promise<WordStats> {
  const { rows } = await db.query<WordStats>(`WITH ${TSV_ELEM_STATS} SELECT ${wordStatsColumns("$1")}`, [q]);
  return rows[0] ?? { analysed: false, query: "", shares: {} };
}

/**
 * The `MAX_INDEXED_WORDS` rarest words of the query as a tsquery text (an AND of lexemes, to bind and cast), or
 * null when the query has no more words than that, is not a plain AND of lexemes, or the table has no statistics
 * yet (nothing tells which words are rare). Rarity is the share of rows holding the word in the planner's
 * statistics (`pg_stats.most_common_elems` of `search_rows.tsv`); a word outside them is rarer than every word in
 * them; ties go in lexeme order, so the same query always asks the index the same words. The lexemes are taken
 * from the query's own text, so the subset is implied by the query.
 */
export function rarestWords(stats: WordStats): string | null {
  // Never analysed (PGlite until someone runs ANALYZE): no word is known to be rare, so the index gets them all.
  if (!stats.analysed || !AND_OF_LEXEMES.test(stats.query)) {
    return null;
  }
  const quoted = [...new Set(stats.query.match(QUOTED_LEXEME) ?? [])];
  if (quoted.length <= MAX_INDEXED_WORDS) {
    return null;
  }
  const share = (token: string) =>
    stats.shares[token.slice(1, -1).replace(/''/g, "'").replace(/\\(.)/g, "$1")] ?? 0;
  return quoted
    .map((token) => ({ token, share: share(token) }))
    .sort((a, b) => a.share - b.share || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0))
    .slice(0, MAX_INDEXED_WORDS)
    .map((word) => word.token)
    .join(" & ");
}
