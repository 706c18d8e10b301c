import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { backtestRenewals } from "../src/analytics/renewals/backtest.ts";
import { openDb } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import {
  type BacktestResult,
  type BacktestRow,
  RENEWAL_PARAMETERS,
  type RenewalParameters,
} from "../src/domain/renewals/signal.ts";
import { ingestPlacsp } from "../src/ingest/placsp/ingest-placsp.ts";
import { createLogger } from "../src/lib/logger.ts";
import { freshPgDatabase, machineLine, markdownTable, REPO_ROOT } from "./lib.ts";

/**
 * `npm run bench -- renewals-real [--source ZIP] [--as-of 2016-07-01,2017-01-01,2017-07-01]`
 * The renewal forecasts on real history (bench/real-history: half of a real regional contract register,
 * written as PLACSP entries): the archive is ingested into a fresh PostgreSQL database, then the backtest scores
 * the service's parameters and a few alternatives on the same data, each against a window of the same length placed
 * at random. Writes bench/results/renewals.md.
 */
const VARIANTS: { name: string; params: RenewalParameters }[] = [
  { name: "service", params: RENEWAL_PARAMETERS },
  { name: "expiry at the end itself (no call lead)", params: { ...RENEWAL_PARAMETERS, maxCallLeadDays: 0 } },
  { name: "expiry window ± 30 days", params: { ...RENEWAL_PARAMETERS, expiryHalfWidthDays: 30 } },
  { name: "expiry window ± 60 days", params: { ...RENEWAL_PARAMETERS, expiryHalfWidthDays: 60 } },
  { name: "high from 4 related tenders", params: { ...RENEWAL_PARAMETERS, highActivity: 4 } },
];

export async function benchRenewalsReal(args: Map<string, string>): Promise<void> {
  const source = args.get("source") ?? join(REPO_ROOT, "bench/real-history/revascon-2015-2018-train.zip");
  const asOf = (args.get("as-of") ?? "2016-07-01,2017-01-01,2017-07-01").split(",");
  const database = await freshPgDatabase("pi_bench_renewals_real");
  const log = createLogger("silent");
  const db = await openDb({ databaseUrl: database.url, dataDir: "" });
  try {
    await migrate(db);
    const ingestStarted = performance.now();
    await ingestPlacsp(
      { db, log, now: () => new Date() },
      {
        source,
        feed: null,
        since: null,
        maxPages: null,
        batchSize: 500,
        http: {
          userAgent: "procurement-intel-bench",
          timeoutMs: 1000,
          retries: 0,
          baseDelayMs: 1,
          maxDelayMs: 5,
        },
      },
    );
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    process.stdout.write(`ingested ${source} in ${ingestSeconds.toFixed(0)} s\n`);
    const results: { name: string; seconds: number; result: BacktestResult }[] = [];
    for (const variant of VARIANTS) {
      const started = performance.now();
      const result = await backtestRenewals({ db, log, asOf, now: new Date(), params: variant.params });
      const seconds = (performance.now() - started) / 1000;
      results.push({ name: variant.name, seconds, result });
      const overall = result.rows[result.rows.length - 1] as BacktestRow;
      process.stdout.write(
        `${variant.name}: skill ${overall.skill} ${JSON.stringify(overall.skill_ci95)} (${seconds.toFixed(1)} s)\n`,
      );
    }
    await writeReport(source, asOf, ingestSeconds, results);
  } finally {
    await db.close();
    await database.drop();
  }
}

const pct = (x: number | null) => (x === null ? "–" : x.toFixed(3));
const interval = (ci: [number, number] | null) =>
  ci === null
    ? "–"
    : `[${ci[0] >= 0 ? "+" : ""}${ci[0].toFixed(3)}, ${ci[1] >= 0 ? "+" : ""}${ci[1].toFixed(3)}]`;

function rowCells(row: BacktestRow): (string | number)[] {
  return [
    row.signal_type,
    row.confidence,
    row.scored,
    row.hits,
    pct(row.hit_rate),
    pct(row.baseline_rate),
    pct(row.from_as_of_rate),
    row.skill === null ? "–" : `${row.skill >= 0 ? "+" : ""}${row.skill.toFixed(3)}`,
    interval(row.skill_ci95),
    pct(row.division_hit_rate),
    row.buyers,
    row.unresolved,
  ];
}

const HEADER = [
  "type",
  "confidence",
  "scored",
  "hits",
  "hit rate",
  "random window",
  "window from as-of",
  "skill",
  "skill 95 % (buyers resampled)",
  "old division rule",
  "buyers",
  "unresolved",
];

async function writeReport(
  source: string,
  asOf: readonly string[],
  ingestSeconds: number,
  results: { name: string; seconds: number; result: BacktestResult }[],
): Promise<void> {
  const service = results[0] as (typeof results)[number];
  const listed = service.result.rows.filter((r) => r.scored > 0);
  const lines = [
    "# Renewal forecasts on real history",
    "",
    `Latest run: ${new Date().toISOString().slice(0, 10)}, ${machineLine()}. Corpus: \`${source.replace(REPO_ROOT, "")}\``,
    `(REVASCON, Basque public contracts 2015–2018, the train half: ${service.result.corpus.tenders} contracts of`,
    `${service.result.corpus.buyers} buyers), ingested into PostgreSQL in ${ingestSeconds.toFixed(0)} s. As of ${asOf.join(", ")};`,
    `coverage end ${service.result.coverage_end} (${service.result.coverage_end_from}). Rules: docs/signals.md, "The backtest".`,
    "",
    `## The service's parameters (backtest ${service.seconds.toFixed(1)} s)`,
    "",
    markdownTable(HEADER, listed.map(rowCells)),
    "",
    "## Alternatives on the same data",
    "",
    markdownTable(
      ["parameters", "scored", "hit rate", "random window", "skill", "skill 95 %", "backtest (s)"],
      results.map(({ name, seconds, result }) => {
        const all = result.rows[result.rows.length - 1] as BacktestRow;
        return [
          name,
          all.scored,
          pct(all.hit_rate),
          pct(all.baseline_rate),
          all.skill === null ? "–" : all.skill.toFixed(3),
          interval(all.skill_ci95),
          seconds.toFixed(1),
        ];
      }),
    ),
    "",
    "Per type and confidence of each alternative:",
    "",
    ...results
      .slice(1)
      .flatMap(({ name, result }) => [
        `### ${name}`,
        "",
        markdownTable(HEADER, result.rows.filter((r) => r.scored > 0).map(rowCells)),
        "",
      ]),
  ];
  await writeFile(join(REPO_ROOT, "bench/results/renewals.md"), `${lines.join("\n")}\n`);
}
