import type { Db } from "../src/db/client.ts";
import {
  BASE_WORDS,
  contentWord,
  FUNCTION_WORDS,
  HEAD_OFFSET,
  HEAD_SHARE,
  TAIL_EXPONENT,
} from "../src/ingest/synthetic/lexicon.ts";

/**
 * Grows an ingested synthetic corpus to a target number of awards by replicating its tenders and awards:
 * copy k gets source refs suffixed `~k` and dates shifted back k × 53 days, and keeps the same buyers and
 * winners, so the skew of the corpus (a few big buyers and winners, many small ones) grows with it.
 *
 * Every date of a copy moves by the same shift, so within a copy a buyer's renewal cycles keep their
 * intervals; but the copies overlap in time, so a buyer × division sees its needs' tenders every ~53 days:
 * an amplified corpus is for read benchmarks, not for renewal backtests (docs/ingestion.md, "Renewals"). Ingesting
 * a million awards' worth of XML through the pipeline would take ~33 GB of pages; the ingest benchmark
 * measures that path, this one measures reads.
 *
 * Texts are not copied verbatim (29 copies of one text would leave the vocabulary at the base corpus's and
 * make every word 29 times as frequent): in copy k, each content word of a tender's title and description is
 * re-drawn (with probability `REDRAW_SHARE`) from the generator's own Zipf lexicon (lexicon.ts, the same two
 * regimes, so the tail keeps bringing new words as the corpus grows). The draw is a hash of (word, tender, k),
 * so a word repeated in one text is replaced by the same word each time and texts keep their length and their
 * number of distinct words. Function words, numbers, punctuation and the first word of each title are kept, so a
 * copy keeps the shape of its base text (length, sentences, "Servicio de … de …").
 */

/** Share of content words re-drawn in each copy (all: half of them gave only half the vocabulary growth). */
const REDRAW_SHARE = 1;
/** Lexicon ranks loaded into the database; rarer draws fold back into the tail below it. */
const WORD_TABLE_SIZE = 500_000;

async function prepareTexts(db: Db): Promise<void> {
  await db.exec(`
    DROP TABLE IF EXISTS amplify_words;
    DROP TABLE IF EXISTS amplify_tokens;
    CREATE UNLOGGED TABLE amplify_words (rank int PRIMARY KEY, word text NOT NULL);
  `);
  const chunk = 100_000;
  for (let start = 0; start < WORD_TABLE_SIZE; start += chunk) {
    const words = Array.from({ length: Math.min(chunk, WORD_TABLE_SIZE - start) }, (_, i) =>
      contentWord(start + i),
    );
    await db.query(
      "INSERT INTO amplify_words SELECT $1::int + ord::int - 1, w FROM unnest($2::text[]) WITH ORDINALITY AS x(w, ord)",
      [start, words],
    );
  }
  // One row per whitespace-separated token of every base text, in order. `word_hash` is set on the tokens that
  // are re-drawn: a word of 3+ letters or digits with at least one letter (and an optional trailing punctuation
  // mark), not a function word and not the first word of a title ("Servicio", "Suministro"); `letter_case` says
  // how to write its replacement (0 lower, 1 capitalized, 2 upper case).
  await db.query(
    `CREATE UNLOGGED TABLE amplify_tokens AS
     SELECT t.id AS tender_id, f.field, tok.pos::int AS pos, tok.token, m[2] AS punct,
            CASE WHEN m IS NOT NULL AND m[1] ~ '[[:alpha:]]' AND NOT (lower(m[1]) = ANY($1::text[]))
                      AND NOT (f.field = 1 AND tok.pos = 1)
                 THEN hashtext(lower(m[1])) END AS word_hash,
            CASE WHEN m IS NULL OR m[1] = lower(m[1]) THEN 0 WHEN m[1] = upper(m[1]) THEN 2 ELSE 1 END AS letter_case
       FROM tenders t
      CROSS JOIN LATERAL (VALUES (1, t.title), (2, t.description)) AS f(field, text)
      CROSS JOIN LATERAL regexp_split_to_table(f.text, ' ') WITH ORDINALITY AS tok(token, pos)
       LEFT JOIN LATERAL regexp_match(tok.token, '^([[:alnum:]]{3,})([.,;:]?)$') AS m ON true
      WHERE t.source_ref NOT LIKE '%~%' AND f.text IS NOT NULL
      ORDER BY t.id, f.field, tok.pos`,
    [FUNCTION_WORDS],
  );
  await db.exec("ANALYZE amplify_words; ANALYZE amplify_tokens");
}

/**
 * The texts of copy `$1` (an int), one row per base tender: the rank of each re-drawn word follows
 * `contentRank` (lexicon.ts), its two uniforms and the re-draw decision taken from one 64-bit hash of the word,
 * the tender and k. (`OFFSET 0` keeps the planner from inlining the hash into every use of it.)
 */
const COPY_TEXTS = `
  SELECT d.tender_id,
         string_agg(coalesce(d.word || d.punct, d.token), ' ' ORDER BY d.pos) FILTER (WHERE d.field = 1) AS title,
         string_agg(coalesce(d.word || d.punct, d.token), ' ' ORDER BY d.pos) FILTER (WHERE d.field = 2) AS description
    FROM (
      SELECT tender_id, field, pos, token, punct,
             CASE WHEN r IS NOT NULL THEN
               (SELECT CASE letter_case WHEN 0 THEN word WHEN 2 THEN upper(word)
                                        ELSE upper(left(word, 1)) || substr(word, 2) END
                  FROM amplify_words
                 WHERE rank = CASE WHEN r < ${WORD_TABLE_SIZE} THEN r::int
                                   ELSE (${BASE_WORDS.length} + r::int8 % ${WORD_TABLE_SIZE - BASE_WORDS.length})::int END)
             END AS word
        FROM (
          SELECT tender_id, field, pos, token, punct, letter_case,
                 CASE WHEN word_hash IS NOT NULL AND (h & 1023) < ${Math.round(REDRAW_SHARE * 1024)} THEN
                   CASE WHEN ((h >> 10) & 1023) < ${Math.round(HEAD_SHARE * 1024)}
                     THEN least(${BASE_WORDS.length - 1},
                                floor(power(${BASE_WORDS.length + HEAD_OFFSET}::float8, v)
                                      * power(${HEAD_OFFSET}::float8, 1 - v) - ${HEAD_OFFSET}))
                     ELSE floor(${BASE_WORDS.length} * power(1 - v, -1.0::float8 / ${TAIL_EXPONENT - 1}))
                   END
                 END AS r
            FROM (SELECT tender_id, field, pos, token, punct, letter_case, word_hash, h,
                         ((h >> 20) & 2147483647)::float8 / 2147483648 AS v
                    FROM (SELECT *, hashint8extended(coalesce(word_hash, 0)::int8 * 4096 + $1::int, tender_id) AS h
                            FROM amplify_tokens OFFSET 0) hashed
                  OFFSET 0) uniforms
        ) ranked
    ) d
   GROUP BY d.tender_id`;

export async function amplify(db: Db, targetAwards: number, log: (line: string) => void): Promise<void> {
  const count = async (sql: string) => (await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0;
  const base = await count(
    "SELECT count(*)::int AS n FROM awards a JOIN tenders t ON t.id = a.tender_id WHERE t.source_ref NOT LIKE '%~%'",
  );
  let total = await count("SELECT count(*)::int AS n FROM awards");
  if (total >= targetAwards) {
    return;
  }
  let started = performance.now();
  await prepareTexts(db);
  log(`texts prepared for re-drawing (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  for (let k = 1; total < targetAwards; k++) {
    started = performance.now();
    await db.query(
      `WITH src AS (
         SELECT * FROM tenders WHERE source_ref NOT LIKE '%~%'
       ), texts AS (${COPY_TEXTS}
       ), copied AS (
         INSERT INTO tenders (source, source_ref, feed, folder_id, notice_type, publication_date, title, description,
                              cpv_main, cpv_all, contract_type, procedure_type, deadline, estimated_value, currency,
                              nuts, url, status, source_codes, normalization_version, framework, duration_months,
                              buyer_id, upstream_updated, raw_hash, is_synthetic)
         SELECT source, source_ref || '~' || $1::text, feed, folder_id, notice_type, publication_date - $2::int,
                coalesce(texts.title, src.title), coalesce(texts.description, src.description), cpv_main, cpv_all,
                contract_type, procedure_type, deadline - make_interval(days => $2::int), estimated_value, currency,
                nuts, url, status, source_codes, normalization_version, framework, duration_months, buyer_id,
                upstream_updated - make_interval(days => $2::int), raw_hash, true
           FROM src
           LEFT JOIN texts ON texts.tender_id = src.id
         RETURNING id, source_ref
       )
       INSERT INTO awards (tender_id, buyer_id, award_key, source, source_ref, lot, result_code, award_date,
                           winner_company_id, winner_name, winner_nif, value, value_payable, currency, bidders_count,
                           framework, value_is_ceiling, duration_months, start_date, start_date_kind, end_date,
                           contract_signed, cpv, extension_text, extension_months, extension_end_date)
       SELECT copied.id, a.buyer_id, a.award_key, a.source, a.source_ref || '~' || $1::text, a.lot, a.result_code,
              a.award_date - $2::int, a.winner_company_id, a.winner_name, a.winner_nif, a.value, a.value_payable,
              a.currency, a.bidders_count, a.framework, a.value_is_ceiling, a.duration_months, a.start_date - $2::int,
              a.start_date_kind, a.end_date - $2::int, a.contract_signed, a.cpv, a.extension_text, a.extension_months,
              a.extension_end_date - $2::int
         FROM awards a
         JOIN src ON src.id = a.tender_id
         JOIN copied ON copied.source_ref = src.source_ref || '~' || $1::text`,
      [k, k * 53],
    );
    total += base;
    log(`copy ${k}: ${total} awards (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  await db.exec("DROP TABLE amplify_tokens; DROP TABLE amplify_words");
  // A live database is vacuumed by autovacuum (visibility map set, so index-only scans skip the heap); a freshly
  // bulk-loaded one is not yet: vacuum it as autovacuum would have, then refresh the planner statistics.
  await db.exec("VACUUM ANALYZE");
}
