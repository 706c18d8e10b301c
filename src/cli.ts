import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import { backtestRenewals } from "./analytics/renewals/backtest.ts";
import { recomputeSignals } from "./analytics/renewals/recompute.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { type Db, openDb } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { LEAD_STATUSES, purgeExpiredLeads, setLeadStatus } from "./domain/leads/leads.ts";
import { inspectTender } from "./domain/tenders/inspect-tender.ts";
import {
  httpOptionsFrom,
  isPlacspFeed,
  PLACSP_FEEDS,
  placspFeedUrl,
  tedQueryFrom,
} from "./ingest/http-options.ts";
import { ingestPlacsp } from "./ingest/placsp/ingest-placsp.ts";
import { loadCpvLabels, loadNutsNames } from "./ingest/refdata/load-reference.ts";
import { writeSyntheticFeed } from "./ingest/synthetic/feed.ts";
import { seedSynthetic } from "./ingest/synthetic/seed.ts";
import { ingestTed } from "./ingest/ted/ingest-ted.ts";
import { systemClock } from "./lib/clock.ts";
import { parseIsoDate } from "./lib/dates.ts";
import { createLogger } from "./lib/logger.ts";
import { stderrProgress } from "./lib/progress.ts";

/**
 * `npm run cli -- <command>`. Each command parses its own flags and prints one JSON line of results on stdout;
 * failures print one line on stderr and exit non-zero.
 */

const USAGE = `usage: npm run cli -- <command>

commands:
  serve                               start the HTTP server (same as npm start)
  migrate                             apply pending database migrations
  ingest cpv --source <path|url>      load CPV labels (CSV: code,check_digit,label_en,label_es)
  ingest nuts --source <path|url>     load NUTS names (CSV: code,level,name,name_national,country_code,parent_code)
  ingest placsp [--source <url|file|dir|zip>] [--feed 643|1044|1143] [--since YYYY-MM-DD] [--max-pages N]
                                      ingest PLACSP ATOM pages; without --source, the configured feed(s)
  ingest ted [--source <api-url|file|dir|tar.gz>] [--since YYYY-MM-DD] [--max-notices N]
                                      ingest TED notices; without --source, the configured Search API
  inspect tender <source_ref> [--pretty]
                                      print a stored tender with its awards (Tender shape of the API)
  leads set-status <id> <status>      move a lead to new, contacted, used, paid or lost
  retention                           purge leads 180 days after they reached contacted, used, paid or lost
  signals                             recompute every renewal signal (ingest runs recompute what they touched)
  backtest-renewals --as-of YYYY-MM-DD [--as-of …] [--coverage-end YYYY-MM-DD] [--forecasts-out FILE]
                                      score the renewal heuristic as of past dates against a window of the
                                      same length placed at random, store and print the result (--forecasts-out:
                                      every scored forecast as JSON lines, to re-score them independently)
  seed --synthetic N [--seed S] [--out DIR] [--no-ingest]
                                      write N synthetic feed entries (host synthetic.invalid) and ingest them
                                      (--no-ingest: only write them to --out, e.g. for a server's IMPORT_DIR)
`;

class UsageError extends Error {}

/** Logs go to stderr: stdout carries only the command's one JSON result line. */
function cliLogger(config: Config) {
  return createLogger(config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL, "stderr");
}

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: 2 });
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

function sourceFlag(args: string[]): string {
  const { values } = parseArgs({ args, options: { source: { type: "string" } }, strict: true });
  if (!values.source) {
    throw new UsageError("--source <path|url> is required");
  }
  return values.source;
}

async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === "serve") {
    // Imported here, not at the top: the server's modules (payments, MCP, OpenAPI) take about a second to load,
    // which every other command would pay for nothing.
    const { runFromEnvironment } = await import("./server.ts");
    await runFromEnvironment(process.env);
    return;
  }
  if (!command || command === "help" || command === "--help") {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig(process.env);
  if (command === "migrate") {
    const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: 2 });
    try {
      print({ command, ...(await migrate(db)) });
    } finally {
      await db.close();
    }
    return;
  }
  if (command === "ingest") {
    const [what, ...flags] = rest;
    if (what === "cpv") {
      const source = sourceFlag(flags);
      print({ command: "ingest cpv", source, ...(await withDb(config, (db) => loadCpvLabels(db, source))) });
      return;
    }
    if (what === "nuts") {
      const source = sourceFlag(flags);
      print({ command: "ingest nuts", source, ...(await withDb(config, (db) => loadNutsNames(db, source))) });
      return;
    }
    if (what === "placsp") {
      await ingestPlacspCommand(config, flags);
      return;
    }
    if (what === "ted") {
      await ingestTedCommand(config, flags);
      return;
    }
    throw new UsageError(`unknown ingest source "${what ?? ""}"; expected cpv, nuts, placsp or ted`);
  }
  if (command === "seed") {
    await seedCommand(config, rest);
    return;
  }
  if (command === "leads") {
    await leadsCommand(config, rest);
    return;
  }
  if (command === "retention") {
    if (rest.length > 0) {
      throw new UsageError("retention takes no arguments");
    }
    const log = cliLogger(config);
    const result = await withDb(config, (db) => purgeExpiredLeads({ ctx: { db, log, now: systemClock } }));
    print({ command: "retention", ...result });
    return;
  }
  if (command === "signals") {
    if (rest.length > 0) {
      throw new UsageError("signals takes no arguments");
    }
    const log = cliLogger(config);
    print({
      command,
      ...(await withDb(config, (db) =>
        recomputeSignals({ db, log, now: systemClock, full: true, progress: stderrProgress("signals") }),
      )),
    });
    return;
  }
  if (command === "backtest-renewals") {
    await backtestCommand(config, rest);
    return;
  }
  if (command === "inspect") {
    const [what, ...args] = rest;
    const pretty = args.includes("--pretty");
    const refs = args.filter((arg) => arg !== "--pretty");
    const sourceRef = refs[0];
    if (what !== "tender" || !sourceRef || refs.length > 1) {
      throw new UsageError("usage: inspect tender <source_ref> [--pretty]");
    }
    const result = await withDb(config, (db) =>
      inspectTender({ ctx: { db, log: createLogger("silent"), now: systemClock }, input: { sourceRef } }),
    );
    // One JSON line like every command; --pretty indents it for reading by eye.
    process.stdout.write(
      `${JSON.stringify({ data: result.tender, provenance: result.provenance }, null, pretty ? 2 : undefined)}\n`,
    );
    return;
  }
  throw new UsageError(`unknown command "${command}"`);
}

async function backtestCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      "as-of": { type: "string", multiple: true },
      "coverage-end": { type: "string" },
      "forecasts-out": { type: "string" },
    },
    strict: true,
  });
  const asOf = values["as-of"] ?? [];
  if (asOf.length === 0) {
    throw new UsageError("--as-of YYYY-MM-DD is required (repeat it for several dates)");
  }
  for (const date of [...asOf, ...(values["coverage-end"] === undefined ? [] : [values["coverage-end"]])]) {
    if (parseIsoDate(date) !== date) {
      throw new UsageError(`"${date}" is not a calendar date YYYY-MM-DD`);
    }
  }
  const log = cliLogger(config);
  const out = values["forecasts-out"] ? createWriteStream(values["forecasts-out"]) : null;
  const result = await withDb(config, (db) =>
    backtestRenewals({
      db,
      log,
      asOf,
      now: systemClock(),
      coverageEnd: values["coverage-end"] ?? null,
      onForecast: out ? (forecast) => out.write(`${JSON.stringify(forecast)}\n`) : undefined,
      progress: stderrProgress("backtest"),
    }),
  );
  if (out) {
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  }
  print({ command: "backtest-renewals", ...result });
}

async function leadsCommand(config: Config, args: string[]): Promise<void> {
  const [what, id, status, ...extra] = args;
  if (what !== "set-status" || id === undefined || status === undefined || extra.length > 0) {
    throw new UsageError("usage: leads set-status <id> <status>");
  }
  const leadId = Number(id);
  if (!(Number.isSafeInteger(leadId) && leadId >= 1)) {
    throw new UsageError("<id> must be a positive integer (a lead id)");
  }
  if (!(LEAD_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`<status> must be one of ${LEAD_STATUSES.join(", ")}`);
  }
  const log = cliLogger(config);
  const lead = await withDb(config, (db) =>
    setLeadStatus({ ctx: { db, log, now: systemClock }, input: { id: leadId, status } }),
  );
  print({ command: "leads set-status", lead });
}

async function ingestPlacspCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      source: { type: "string" },
      feed: { type: "string" },
      since: { type: "string" },
      "max-pages": { type: "string" },
    },
    strict: true,
  });
  if (values.feed !== undefined && !isPlacspFeed(values.feed)) {
    throw new UsageError(`--feed must be one of ${PLACSP_FEEDS.join(", ")}`);
  }
  if (values.since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.since)) {
    throw new UsageError("--since must be a date YYYY-MM-DD");
  }
  const maxPages = values["max-pages"] === undefined ? null : Number(values["max-pages"]);
  if (maxPages !== null && !(Number.isInteger(maxPages) && maxPages >= 1)) {
    throw new UsageError("--max-pages must be a positive integer");
  }
  const feeds = values.feed ? [values.feed] : values.source ? [null] : config.INGEST_PLACSP_FEEDS.split(",");
  const log = cliLogger(config);
  await withDb(config, async (db) => {
    for (const feed of feeds) {
      const source = values.source ?? (feed && isPlacspFeed(feed) ? placspFeedUrl(config, feed) : "");
      const summary = await ingestPlacsp(
        { db, log, now: systemClock, progress: stderrProgress(`ingest placsp ${feed ?? ""}`.trim()) },
        {
          source,
          feed: feed && isPlacspFeed(feed) ? feed : null,
          since: values.since ?? null,
          maxPages,
          batchSize: 500,
          http: httpOptionsFrom(config, log),
        },
      );
      print({ command: "ingest placsp", ...summary });
    }
  });
}

async function ingestTedCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      source: { type: "string" },
      since: { type: "string" },
      "max-notices": { type: "string" },
    },
    strict: true,
  });
  if (values.since !== undefined && !isCalendarDate(values.since)) {
    throw new UsageError("--since must be a date YYYY-MM-DD");
  }
  const maxNotices = values["max-notices"] === undefined ? null : Number(values["max-notices"]);
  if (maxNotices !== null && !(Number.isInteger(maxNotices) && maxNotices >= 1)) {
    throw new UsageError("--max-notices must be a positive integer");
  }
  const log = cliLogger(config);
  const summary = await withDb(config, (db) =>
    ingestTed(
      { db, log, now: systemClock, progress: stderrProgress("ingest ted") },
      {
        source: values.source ?? config.TED_API_URL,
        since: values.since ?? null,
        maxNotices,
        batchSize: 250,
        http: httpOptionsFrom(config, log),
        query: tedQueryFrom(config),
        lookbackDays: config.TED_LOOKBACK_DAYS,
      },
    ),
  );
  print({ command: "ingest ted", ...summary });
}

/** `YYYY-MM-DD` naming a real day (2024-02-30 is not one). */
function isCalendarDate(value: string): boolean {
  const ms = Date.parse(`${value}T00:00:00Z`);
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value)
  );
}

async function seedCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      synthetic: { type: "string" },
      seed: { type: "string" },
      out: { type: "string" },
      "no-ingest": { type: "boolean" },
    },
    strict: true,
  });
  const entries = Number(values.synthetic);
  if (!(Number.isInteger(entries) && entries >= 1 && entries <= 10_000_000)) {
    throw new UsageError(
      "--synthetic N is required: the number of feed entries to generate (1 to 10,000,000)",
    );
  }
  const seed = values.seed === undefined ? 643 : Number(values.seed);
  if (!Number.isInteger(seed)) {
    throw new UsageError("--seed must be an integer");
  }
  if (values["no-ingest"]) {
    // Files only, no database: for a running server's import folder (the database is the server's).
    if (!values.out) {
      throw new UsageError("--no-ingest needs --out DIR: where the feed pages are written");
    }
    const { files: _files, ...written } = await writeSyntheticFeed(values.out, { entries, seed });
    print({ command: "seed", written: { ...written, dir: values.out } });
    return;
  }
  const log = cliLogger(config);
  const result = await withDb(config, (db) =>
    seedSynthetic(
      { db, log, now: systemClock, progress: stderrProgress("seed") },
      { entries, seed, outDir: values.out ?? null, http: httpOptionsFrom(config, log) },
    ),
  );
  print({ command: "seed", ...result });
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
