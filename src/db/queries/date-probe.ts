import type { Queryable } from "../client.ts";
import {
  mayHaveManyWords,
  rarestWords,
  readWordStats,
  TSV_ELEM_STATS,
  type WordStats,
  wordStatsColumns,
} from "./indexed-words.ts";
import type { Params } from "./params.ts";

/**
 * "Newest rows first" for text matches over `search_rows` (migration 0025, docs/search.md). Every search row's
 * vector holds two terms naming its kind and the year and quarter of its date ('~award2026', '~award2026q2'). A
 * word that matches tens of thousands of rows can then be asked of the GIN index together with the terms of the
 * newest years and quarters only: `tsv @@ words AND tsv @@ ('~award2026' | '~award2025' | '~award2024q4')`.
 * That reads about the rows a search can keep (the newest 10,001) instead of every match. How far back to ask is
 * sized from the rows per quarter (`search_row_quarters`, kept by triggers) and the share of rows holding each word
 * (the planner's statistics, `pg_stats`). Sizing only decides how much is read: the caller checks the answer
 * (`probeAnswered`) and asks again without a probe when the quarters held too few matches. A read of text matches
 * only asks a probe's newest quarters first and its older ones only when those fall short (`nearFirstSql`), in the
 * same statement.
 */

export interface DateProbe {
  /** The date terms as a tsquery text: whole years from the kind's newest down, then the oldest year's quarters. */
  terms: string;
  /** First day of the oldest quarter asked for: the probe finds every match dated on or after it. */
  from: string;
  /** The kind's newest date when the probe was planned (a row dated in a later year has no term in the probe). */
  newest: string;
  /** The newest of those quarters, expected to hold the rows wanted by a smaller margin; null when that is all. */
  near: NearQuarters | null;
}

/**
 * A probe's quarters in two parts: `terms` (its newest quarters) are read first, and `farTerms` (the probe's older
 * quarters) only when the near ones held fewer matches than wanted. A statement may split a probe so only when every
 * row it reads holds the words: the count of the near part then says whether an older match can belong to the answer
 * (search does, and research's tender window when no buyer is named; a named buyer's tenders are read whatever their
 * date, so with one it asks for every quarter at once).
 */
export interface NearQuarters {
  terms: string;
  farTerms: string;
}

/**
 * Ask for quarters expected to hold this many times the rows wanted: the word's share is from a sample of the
 * whole relation, and a word may be rarer in the newest quarters than overall (a fading topic).
 */
const PROBE_MARGIN = 1.5;
/**
 * The near part of a probe: quarters expected to hold this many times the rows wanted (the margin covers the
 * sample's error and the oldest quarter's rounding). With the words' shares as they are overall, the near quarters
 * hold the window and the older ones are never read. Measured at a million awards, in one process, alternating,
 * same answers: "ciberseguridad" reads 12,478 rows instead of 15,867 (46.2 -> 40.1 ms), "mantenimiento de software"
 * 10,926 instead of 14,351 (51.9 -> 44.6 ms). Near quarters that fall short cost one more GIN scan (44 -> 47 ms).
 */
const NEAR_MARGIN = 1.1;
/**
 * Above this share of rows holding the words, no probe: the plain statement walks the list order and meets the
 * window's matches within a few rows per match, which is what a probe would read anyway.
 */
const PROBE_MAX_WORD_SHARE = 0.25;

/**
 * A date with a four-digit year: terms, bounds and comparisons below read the year as its first four characters
 * and compare dates as text. A newest row dated otherwise (a year past 9999, a BC date: bad data) means no probe.
 */
const FOUR_DIGIT_DATE = /^\d{4}-\d{2}-\d{2}$/;

interface ProbeStats {
  word_freqs: number[] | null;
  quarters: string[] | null;
  quarter_rows: (number | string)[] | null;
  newest: string | null;
}

/**
 * The shares of rows a query's words are expected to match, in the order to try them: for one word its share;
 * for several, first the geometric mean of the rarest word's share and the product of all (a phrase's words
 * usually come together: "mantenimiento de software" matches 5.7 % of the rows, its words 24 % and 13 %, their
 * product 3.2 %, the mean 6.5 %), then the product (the words independent: a probe that reads more, which holds
 * the window unless the words avoid each other). Empty when a word is outside the statistics (rare).
 */
export function probeShares(wordShares: readonly number[]): number[] {
  const product = wordShares.reduce((all, share) => all * share, 1);
  if (wordShares.length === 0 || product === 0) {
    return [];
  }
  if (wordShares.length === 1) {
    return [product];
  }
  const together = Math.sqrt(Math.min(...wordShares) * product);
  return together === product ? [product] : [together, product];
}

/**
 * How a text read asks the index (search and the research brief's tender window): the date probes to try
 * (`probesFor`, when `probe`) and the words the index is asked for (`rarestWords`, when `indexedWords` and
 * the query may have more words than that). One read of the statistics serves both.
 */
export async function planTextRead(
  db: Queryable,
  kind: "award" | "contract" | "tender",
  q: string,
  wanted: number,
  options: { probe: boolean; indexedWords: boolean },
): Promise<{ probes: DateProbe[]; indexed: string | null }> {
  const words = options.indexedWords && mayHaveManyWords(q);
  if (options.probe) {
    const stats = await readProbeStats(db, kind, q, wanted, words);
    return { probes: stats.probes, indexed: stats.words ? rarestWords(stats.words) : null };
  }
  return { probes: [], indexed: words ? rarestWords(await readWordStats(db, q)) : null };
}

/**
 * One statement: the words' shares, the kind's rows per quarter and its newest date, planned into probes for
 * `wanted` rows; with `withWords` also the query's `WordStats` (only a query that may have more words than the
 * index is asked for needs them).
 */
async function readProbeStats(
  db: Queryable,
  kind: "award" | "contract" | "tender",
  q: string,
  wanted: number,
  withWords: boolean,
): Promise<{ words: WordStats | null; probes: DateProbe[] }> {
  const { rows } = await db.query<ProbeStats & WordStats>(
    `WITH ${TSV_ELEM_STATS}
     SELECT ARRAY(SELECT coalesce(e.freq, 0)::float8
                    FROM unnest(tsvector_to_array(to_tsvector('spanish', immutable_unaccent($1)))) AS w (lexeme)
                    LEFT JOIN elem e ON e.elem = w.lexeme) AS word_freqs,
            ARRAY(SELECT quarter::text FROM search_row_quarters WHERE kind = $2 AND rows > 0
                   ORDER BY quarter DESC) AS quarters,
            ARRAY(SELECT rows FROM search_row_quarters WHERE kind = $2 AND rows > 0
                   ORDER BY quarter DESC) AS quarter_rows,
            ${newestDateSql("$2")} AS newest${
              withWords
                ? `,
            ${wordStatsColumns("$1")}`
                : ""
            }`,
    [q, kind],
  );
  const stats = rows[0];
  return {
    words: withWords
      ? { analysed: stats?.analysed ?? false, query: stats?.query ?? "", shares: stats?.shares ?? {} }
      : null,
    probes: stats ? probesFor(kind, stats, wanted) : [],
  };
}

/**
 * Probes to try in turn over the newest quarters of `kind`, each expected (at one of `probeShares`) to hold at
 * least `wanted` rows matching the words of `q` (each word present, as plainto_tsquery asks), as year and
 * quarter terms. None when no probe is worth it: no statistics yet (a database never analysed, as PGlite is until
 * someone runs ANALYZE), a word rare enough to be outside the statistics' common words (its matches are few: the
 * plain read is cheap), words frequent enough for the plain read to find the window early, or fewer expected
 * matches in all than the margin.
 */
function probesFor(kind: "award" | "contract" | "tender", stats: ProbeStats, wanted: number): DateProbe[] {
  if (!stats.word_freqs?.length || !stats.newest || !stats.quarters || !stats.quarter_rows) {
    return [];
  }
  if (!FOUR_DIGIT_DATE.test(stats.newest)) {
    return [];
  }
  const { newest, quarters, quarter_rows: quarterRows } = stats;
  const probes: DateProbe[] = [];
  for (const share of probeShares(stats.word_freqs)) {
    if (share > PROBE_MAX_WORD_SHARE) {
      continue;
    }
    // The first quarter (newest first) by which the expected matches reach `margin` times the rows wanted.
    const reached = (margin: number): string | null => {
      let expected = 0;
      for (const [i, quarter] of quarters.entries()) {
        expected += Number(quarterRows[i]) * share;
        if (expected >= margin * wanted) {
          return quarter;
        }
      }
      return null;
    };
    const from = reached(PROBE_MARGIN);
    // A quarter after the newest row: the counts are ahead of the rows (a concurrent write): ask plainly.
    if (from === null || from > newest) {
      continue;
    }
    const terms = dateTerms(kind, from, newest);
    if (probes.some((p) => p.terms === terms)) {
      continue;
    }
    const nearFrom = reached(NEAR_MARGIN);
    const near =
      nearFrom !== null && nearFrom > from && nearFrom <= newest
        ? {
            terms: dateTerms(kind, nearFrom, newest),
            farTerms: quarterTerms(kind, from, nearFrom),
          }
        : null;
    probes.push({ terms, from, newest, near });
  }
  return probes;
}

/**
 * The terms of every date from the first day of `from` (a quarter) through the end of `newest`'s year: whole years
 * as year terms, the oldest year by its quarters unless it starts with the first.
 */
function dateTerms(kind: string, from: string, newest: string): string {
  return quarterTerms(kind, from, `${Number(newest.slice(0, 4)) + 1}-01-01`);
}

/**
 * The terms of the quarters from `from` up to, not including, `until` (both first days of quarters), newest first:
 * a year whose four quarters are all asked for as its year term, any other year by its quarters.
 */
function quarterTerms(kind: string, from: string, until: string): string {
  const index = (day: string) => Number(day.slice(0, 4)) * 4 + Math.floor((Number(day.slice(5, 7)) - 1) / 3);
  const first = index(from);
  const terms: string[] = [];
  for (let q = index(until) - 1; q >= first; ) {
    const year = Math.floor(q / 4);
    if (q % 4 === 3 && q - 3 >= first) {
      terms.push(`'~${kind}${year}'`);
      q -= 4;
    } else {
      terms.push(`'~${kind}${year}q${(q % 4) + 1}'`);
      q -= 1;
    }
  }
  return terms.join(" | ");
}

/**
 * A probed read that asks its near quarters first (`NearQuarters`): every near row, then, only when they are fewer
 * than `limit` (a bound parameter), the far quarters' rows; the newest `limit` of them in list order. `select(terms,
 * extra)` is one SELECT over `search_rows s` whose rows all hold the words, asked of those date terms, with the
 * `extra` conditions added to its WHERE; its columns include `id` and `date`. The far branch's condition is on an
 * uncorrelated subquery, which PostgreSQL tests once, before reading anything of that branch.
 */
export function nearFirstSql(
  select: (dateTerms: string, extra: string[]) => string,
  near: NearQuarters,
  limit: string,
): string {
  return `WITH near AS MATERIALIZED (${select(near.terms, [])})
          SELECT * FROM near
          UNION ALL
          (${select(near.farTerms, [`(SELECT count(*) FROM near) < ${limit}`])})
          ORDER BY date DESC NULLS LAST, id DESC
          LIMIT ${limit}`;
}

/**
 * `s.tsv` matching the words (a tsquery expression), asked of a probe's years and quarters (`dateTerms`, a tsquery
 * text) when there are some.
 * With `indexed` (a tsquery text of some of the words, indexed-words.ts) the index is asked for those words only and
 * the whole query is tested on the rows it finds, through the function behind `@@`, which no index serves.
 */
export function wordsMatchSql(
  words: string,
  dateTerms: string | null,
  params: Params,
  indexed: string | null = null,
): string {
  const asked = indexed === null ? words : `${params.add(indexed)}::tsquery`;
  // Two conditions, not one tsquery `words && terms`: GIN then scans them as two keys and intersects them by
  // skipping through the date terms' lists, where one key would walk every entry of the terms it must see (its
  // shortest lists: the newest year's and the quarters', often shorter than the word's). Measured at 1M awards:
  // GIN 68 -> 35 ms for "ciberseguridad", 82 -> 43 ms for "mantenimiento de software" (same answers).
  const match = dateTerms
    ? `s.tsv @@ ${asked} AND s.tsv @@ ${params.add(dateTerms)}::tsquery`
    : `s.tsv @@ ${asked}`;
  return indexed === null ? match : `${match} AND ts_match_vq(s.tsv, ${words})`;
}

/**
 * The kind's newest date as a scalar subquery over `search_rows`, for a probed statement to read in the same
 * snapshot as its matches (`probeAnswered` compares it with the planned newest). `kindSql` is a literal or a
 * bound parameter.
 */
export function newestDateSql(kindSql: string): string {
  return `(SELECT n.date::text FROM search_rows n WHERE n.kind = ${kindSql}
            ORDER BY n.date DESC NULLS LAST, n.id DESC LIMIT 1)`;
}

/**
 * Whether a probed answer is the answer: it holds `wanted` rows, its last row (in list order) is dated inside
 * the quarters asked for, and no row of a later year than the planned newest appeared since. Rows matched
 * otherwise than by the words (a buyer named like the topic) are read whole, so the last row's date is what
 * proves that no match older than the probe's quarters could come before it.
 */
export function probeAnswered(
  probe: DateProbe,
  answer: { matched: number; lastDate: string | null; newest: string | null },
  wanted: number,
): boolean {
  return (
    answer.matched >= wanted &&
    answer.lastDate !== null &&
    answer.lastDate >= probe.from &&
    // A row dated in a year after the planned newest has no term in the probe.
    (answer.newest === null ||
      (FOUR_DIGIT_DATE.test(answer.newest) && answer.newest.slice(0, 4) <= probe.newest.slice(0, 4)))
  );
}
