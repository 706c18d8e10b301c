import { parseArgs } from "node:util";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { type Db, openDb } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { loadCpvLabels, loadNutsNames } from "./ingest/refdata/load-reference.ts";
import { runFromEnvironment } from "./server.ts";

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
`;

class UsageError extends Error {}

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
    throw new UsageError(`unknown ingest source "${what ?? ""}"; expected cpv or nuts`);
  }
  throw new UsageError(`unknown command "${command}"`);
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
