import type { Queryable } from "../src/db/client.ts";

/**
 * PLACEHOLDER, to be replaced at merge by the real module (realistic synthetic text, another branch). Only the
 * two exports below are relied on by the API benchmark; this version computes the number of tenders and the
 * mean number of words in title + description, in SQL.
 */
export interface TextStats {
  tenders: number;
  meanWords: number;
}

export async function corpusTextStats(db: Queryable): Promise<TextStats> {
  const { rows } = await db.query<{ tenders: number; mean_words: number | null }>(
    `SELECT count(*)::int AS tenders,
            avg(array_length(regexp_split_to_array(trim(coalesce(title, '') || ' ' || coalesce(description, '')),
                                                   '\\s+'), 1))::float8 AS mean_words
       FROM tenders`,
  );
  return { tenders: rows[0]?.tenders ?? 0, meanWords: rows[0]?.mean_words ?? 0 };
}

export function formatTextStats(stats: TextStats): string {
  return `text (placeholder stats): ${stats.tenders.toLocaleString("en")} tenders, ${stats.meanWords.toFixed(1)} words per title + description on average`;
}
