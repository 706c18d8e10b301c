import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db, Queryable } from "../src/db/client.ts";
import { openDb } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { ingestPlacsp } from "../src/ingest/placsp/ingest-placsp.ts";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";
import { ingestTed } from "../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../src/lib/logger.ts";
import { amplify } from "./amplify.ts";
import { freshPgDatabase, machineLine, REPO_ROOT } from "./lib.ts";

/**
 * Text statistics of a corpus's tenders (title + description, as the ingesters store them), to say next to
 * search timings what kind of text was searched: full-text costs depend on how long texts are, how many
 * distinct words each has and how large the vocabulary is.
 *
 * Words: `immutable_unaccent(lower(text))` split on every run of characters outside `[a-z0-9]` (so "ñ" and
 * accented letters count as their base letter, numbers and codes count as words). Lexemes: the distinct
 * entries of the tenders' own `tsv` column (Spanish stemming of the unaccented text, what search matches on).
 */

export interface Distribution {
  mean: number;
  p50: number;
  p90: number;
}

export interface TextStats {
  /** Tenders in the table. */
  tenders: number;
  /** Tenders measured: all of them, or a deterministic sample (`id` hashed) when the table is larger. */
  measured: number;
  /** Words per text (title + description). */
  words: Distribution;
  /** Distinct words per text. */
  distinctWords: Distribution;
  titleWords: Distribution;
  /** Over every measured text; a text without description counts 0. */
  descriptionWords: Distribution;
  /** Share of texts with a non-empty description. */
  withDescription: number;
  /** Distinct words over the measured texts. */
  vocabulary: number;
  /** Distinct Spanish lexemes (`ts_stat` over `tsv`) of the measured texts. */
  lexemes: number;
}

export interface TextStatsOptions {
  /** Only this source's tenders (`placsp`, `ted`). */
  source?: string;
  /** Measure at most about this many tenders (a deterministic sample by hash of `id`); default 2,000,000. */
  maxTenders?: number;
}

const SPLIT = "'[^a-z0-9]+'";

/** The words of a text column as an array (empty when null). */
function wordArray(column: string): string {
  return `array_remove(regexp_split_to_array(immutable_unaccent(lower(coalesce(${column}, ''))), ${SPLIT}), '')`;
}

export async function corpusTextStats(db: Queryable, options: TextStatsOptions = {}): Promise<TextStats> {
  const params: unknown[] = [];
  const where: string[] = [];
  if (options.source !== undefined) {
    params.push(options.source);
    where.push(`source = $${params.length}`);
  }
  const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const total =
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tenders ${filter}`, params)).rows[0]?.n ??
    0;
  const max = options.maxTenders ?? 2_000_000;
  // 1 in `every` tenders, chosen by a hash of the id: the same sample on every run over the same ids.
  const every = Math.max(1, Math.ceil(total / max));
  const sampleWhere = every > 1 ? [...where, `(hashint8(id::int8) & 2147483647) % ${every} = 0`] : where;
  const sample = sampleWhere.length > 0 ? `WHERE ${sampleWhere.join(" AND ")}` : "";
  const dist = (col: string) =>
    `json_build_object('mean', coalesce(avg(${col}), 0), 'p50', coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY ${col}), 0),
                       'p90', coalesce(percentile_disc(0.9) WITHIN GROUP (ORDER BY ${col}), 0))`;
  const per = await db.query<{
    measured: number;
    words: Distribution;
    distinct_words: Distribution;
    title_words: Distribution;
    description_words: Distribution;
    with_description: number;
  }>(
    `WITH t AS MATERIALIZED (
       SELECT ${wordArray("title")} AS ti, ${wordArray("description")} AS de FROM tenders ${sample}
     ), per AS (
       SELECT cardinality(ti) AS title_words, cardinality(de) AS description_words,
              (SELECT count(DISTINCT w) FROM unnest(ti || de) w)::int AS distinct_words
         FROM t
     )
     SELECT count(*)::int AS measured, ${dist("title_words + description_words")} AS words,
            ${dist("distinct_words")} AS distinct_words, ${dist("title_words")} AS title_words,
            ${dist("description_words")} AS description_words,
            coalesce(avg((description_words > 0)::int), 0)::float8 AS with_description
       FROM per`,
    params,
  );
  // SELECT DISTINCT (hashed, parallel) rather than count(DISTINCT …) (one big sort): 3x faster.
  const vocabulary = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT DISTINCT w
         FROM tenders, regexp_split_to_table(immutable_unaccent(lower(coalesce(title, '') || ' ' || coalesce(description, ''))), ${SPLIT}) w
        WHERE w <> '' ${sampleWhere.length > 0 ? `AND ${sampleWhere.join(" AND ")}` : ""}
     ) v`,
    params,
  );
  // ts_stat takes the query as text; the only parameter there is the source, checked to be a plain name.
  if (options.source !== undefined && !/^[a-z]+$/.test(options.source)) {
    throw new Error(`unexpected source ${options.source}`);
  }
  const lexemeWhere = sampleWhere.map((w) => w.replace(/\$1/, `'${options.source ?? ""}'`));
  const lexemeQuery = `SELECT tsv FROM tenders ${lexemeWhere.length > 0 ? `WHERE ${lexemeWhere.join(" AND ")}` : ""}`;
  const lexemes = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM ts_stat($1)", [lexemeQuery]);
  const row = per.rows[0];
  const zero = { mean: 0, p50: 0, p90: 0 };
  const fix = (d: Distribution | undefined): Distribution =>
    d ? { mean: Number(d.mean), p50: Number(d.p50), p90: Number(d.p90) } : zero;
  return {
    tenders: total,
    measured: row?.measured ?? 0,
    words: fix(row?.words),
    distinctWords: fix(row?.distinct_words),
    titleWords: fix(row?.title_words),
    descriptionWords: fix(row?.description_words),
    withDescription: Number(row?.with_description ?? 0),
    vocabulary: vocabulary.rows[0]?.n ?? 0,
    lexemes: lexemes.rows[0]?.n ?? 0,
  };
}

const fmt = (n: number) => n.toLocaleString("en", { maximumFractionDigits: 1 });
const fmtDist = (d: Distribution) => `${fmt(d.mean)} (p50 ${fmt(d.p50)}, p90 ${fmt(d.p90)})`;

/** One markdown line to print beside benchmark numbers. */
export function formatTextStats(s: TextStats): string {
  const sampled = s.measured < s.tenders ? ` (a deterministic sample of ${fmt(s.measured)})` : "";
  return (
    `Text of ${fmt(s.tenders)} tenders${sampled}: words per text ${fmtDist(s.words)}, ` +
    `distinct words per text ${fmtDist(s.distinctWords)}; title ${fmtDist(s.titleWords)} words, ` +
    `description ${fmtDist(s.descriptionWords)} words (${Math.round(s.withDescription * 100)}% have one); ` +
    `vocabulary ${fmt(s.vocabulary)} words, ${fmt(s.lexemes)} Spanish lexemes.`
  );
}

/** The corpus's text line, or why there is none: a failing description must not sink a long benchmark run. */
export async function describeCorpusText(db: Queryable): Promise<string> {
  try {
    return formatTextStats(await corpusTextStats(db));
  } catch (error) {
    return `text stats unavailable (${error instanceof Error ? error.message : String(error)})`;
  }
}

const FIXTURES = join(REPO_ROOT, "../shared/fixtures/");
const HTTP = { userAgent: "bench", timeoutMs: 1000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 };

async function ingestFixtures(db: Db): Promise<void> {
  const deps = { db, log: createLogger("warn"), now: () => new Date() };
  await ingestPlacsp(deps, {
    source: join(FIXTURES, "placsp"),
    feed: null,
    since: null,
    maxPages: null,
    batchSize: 500,
    http: HTTP,
  });
  await ingestTed(deps, {
    source: join(FIXTURES, "ted"),
    since: null,
    maxNotices: null,
    batchSize: 500,
    http: HTTP,
    query: { apiQuery: null, cpvPrefixes: [], countries: [] },
    lookbackDays: 0,
  });
}

/**
 * `npm run bench -- text-stats [--entries 50000] [--engine pglite|postgres] [--awards 1000000] [--seed 643]`
 * The text statistics of the real fixtures (shared/fixtures: PLACSP and TED, through the real ingesters) and of
 * a synthetic corpus of `entries` feed entries ingested the same way; with `--awards`, also after amplifying it
 * to that many awards (PostgreSQL recommended). Writes bench/results/text-stats.md.
 */
export async function benchTextStats(args: Map<string, string>): Promise<void> {
  const entries = Number(args.get("entries") ?? "50000");
  const engine = args.get("engine") ?? "pglite";
  const awards = args.has("awards") ? Number(args.get("awards")) : null;
  const seed = Number(args.get("seed") ?? "643");
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };

  const fixtureDir = await mkdtemp(join(tmpdir(), "pi-text-stats-fixtures-"));
  try {
    const db = await openDb({ dataDir: fixtureDir });
    try {
      await migrate(db);
      await ingestFixtures(db);
      say(`- Real fixtures, PLACSP: ${formatTextStats(await corpusTextStats(db, { source: "placsp" }))}`);
      say(`- Real fixtures, TED: ${formatTextStats(await corpusTextStats(db, { source: "ted" }))}`);
      say(`- Real fixtures, both: ${formatTextStats(await corpusTextStats(db))}`);
    } finally {
      await db.close();
    }
  } finally {
    await rm(fixtureDir, { recursive: true, force: true });
  }

  if (entries > 0) {
    const corpus = await mkdtemp(join(tmpdir(), "pi-text-stats-corpus-"));
    const dataDir = await mkdtemp(join(tmpdir(), "pi-text-stats-db-"));
    const database = engine === "postgres" ? await freshPgDatabase("pi_bench_text_stats") : null;
    try {
      let started = performance.now();
      const written = await writeSyntheticFeed(corpus, { entries, seed });
      process.stdout.write(
        `generated ${entries} entries (${(written.bytes / 1e6).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
      const db = await openDb({ databaseUrl: database?.url, dataDir, poolSize: 4 });
      try {
        await migrate(db);
        started = performance.now();
        const summary = await ingestPlacsp(
          { db, log: createLogger("warn"), now: () => new Date() },
          { source: corpus, feed: "643", since: null, maxPages: null, batchSize: 500, http: HTTP },
        );
        process.stdout.write(
          `ingested in ${((performance.now() - started) / 1000).toFixed(1)} s, ${summary.errors} errors\n`,
        );
        if (summary.errors > 0) {
          throw new Error(`the synthetic corpus gave ${summary.errors} ingest errors`);
        }
        await rm(corpus, { recursive: true, force: true });
        say(
          `- Synthetic, ${entries.toLocaleString("en")} entries (seed ${seed}): ${formatTextStats(await corpusTextStats(db))}`,
        );
        if (awards !== null) {
          started = performance.now();
          await amplify(db, awards, (line) => process.stdout.write(`${line}\n`));
          process.stdout.write(`amplified in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
          started = performance.now();
          const stats = await corpusTextStats(db);
          process.stdout.write(`measured in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
          say(`- Synthetic, amplified to ${awards.toLocaleString("en")} awards: ${formatTextStats(stats)}`);
        }
      } finally {
        await db.close();
      }
    } finally {
      await rm(corpus, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
      await database?.drop();
    }
  }
  const report = `# text-stats\n\n${machineLine()}; ${engine}. Words: unaccented, lower-cased runs of [a-z0-9]; lexemes: distinct entries of the tenders' Spanish tsvector.\n\n${lines.join("\n")}\n`;
  await writeFile(join(REPO_ROOT, "bench/results/text-stats.md"), report);
}
