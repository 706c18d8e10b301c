import type { ServerType } from "@hono/node-server";
import { createApp } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { createPgDb, type Db, openDb } from "./db/client.ts";
import { DataDirLockedError } from "./db/data-dir-lock.ts";
import { openLanes } from "./db/lanes.ts";
import { migrate } from "./db/migrate.ts";
import { hasSyntheticTenders } from "./db/queries/ingest-tenders.ts";
import {
  createIngestLeadership,
  leaderRetryMs,
  pgLeaderLock,
  soleProcessLock,
} from "./fleet/ingest-leader.ts";
import { joinFleet } from "./fleet/instance.ts";
import { startLeaderJobs } from "./fleet/leader-jobs.ts";
import { startLeaderJobsOnThread } from "./fleet/leader-thread.ts";
import { createHttpServer } from "./http/node-server.ts";
import { loadCpvLabels, loadNutsNames } from "./ingest/refdata/load-reference.ts";
import { systemClock } from "./lib/clock.ts";
import { createLogger, type Logger } from "./lib/logger.ts";
import { createPayments } from "./payments/index.ts";
import { startOrphanSweep, sweepOrphanedPayments } from "./payments/orphans.ts";
import { subscriptionSettingsFrom } from "./payments/subscription/settings.ts";
import { resolveX402Settings } from "./payments/x402/index.ts";

export interface RunningServer {
  server: ServerType;
  port: number;
  db: Db;
  close(): Promise<void>;
}

/**
 * Start-up sequence: config → database → migrations → reference data → fleet membership → app → listen →
 * ingest election. Used by `npm start` (main.ts) and `npm run cli -- serve`.
 */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  // Resolved before anything opens: a wrong X402_* value stops start-up with one line.
  const x402 = config.PAYMENTS_MODE === "x402" ? { settings: resolveX402Settings(config) } : undefined;
  const subscription = subscriptionSettingsFrom(config);
  const db = await openDb({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolSize: config.DATABASE_POOL_SIZE,
  });
  const migrated = await migrate(db);
  log.info({ engine: db.engine, applied: migrated.applied, total: migrated.total }, "database ready");
  await refuseSyntheticDataForRealPayments(db, config);
  await loadReferenceData(db, config, log);

  // Read-only verbs may read from a replica; its schema is the primary's (migrated above, replicated).
  const readDb = config.DATABASE_READ_URL
    ? createPgDb(config.DATABASE_READ_URL, { poolSize: config.DATABASE_POOL_SIZE })
    : undefined;
  // Before any payment is taken: payments carry this process's instance key (payments/orphans.ts). The payments
  // of processes that died mid-call (this one's predecessor on PGlite) are given back before serving.
  const instance = await joinFleet({ db, databaseUrl: config.DATABASE_URL, log });
  // Requests in the foreground; the ingest and what follows it in the background, which on the embedded engine
  // waits for a pause in the requests before each statement and between the entries it parses (db/lanes.ts).
  const lanes = openLanes(db);
  const swept = await sweepOrphanedPayments({ db, now: systemClock });
  if (swept.refundedDebits + swept.releasedDevTokens + swept.failedClaims > 0) {
    log.warn(swept, "gave back the payments of calls whose process died before answering");
  }
  const payments = createPayments({
    db: lanes.foreground,
    dataDb: readDb,
    now: systemClock,
    mode: config.PAYMENTS_MODE,
    devTokenTtlSeconds: config.DEV_TOKEN_TTL_SECONDS,
    x402,
    subscription,
    holder: () => instance.key,
    log,
  });
  const leadership = createIngestLeadership({
    role: config.INGEST_ROLE,
    lock: config.DATABASE_URL ? pgLeaderLock(config.DATABASE_URL, log) : soleProcessLock,
    retryMs: leaderRetryMs(config),
    log,
    now: systemClock,
    // On PostgreSQL the jobs run on a thread of their own; the embedded engine is this thread's one connection, so
    // there they run here, in the background lane.
    startJobs: () =>
      db.engine === "postgres"
        ? startLeaderJobsOnThread(config, log)
        : startLeaderJobs(lanes.background, config, log),
  });
  let draining = false;
  const app = createApp({
    config,
    domain: { db: lanes.foreground, readDb, log, now: systemClock },
    payments,
    process: { ingestLeader: () => leadership.status(), draining: () => draining },
  });

  const server = await new Promise<ServerType>((resolve, reject) => {
    // `serve` from @hono/node-server, plus the error envelope for requests that never reach the app.
    const started = createHttpServer(app.fetch, { hostname: config.HOST });
    started.listen(config.PORT, config.HOST, () => resolve(started));
    started.once("error", (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === "EADDRINUSE"
          ? `port ${config.PORT} on ${config.HOST} is already in use; stop what listens there or set PORT`
          : `cannot listen on ${config.HOST}:${config.PORT}: ${error.message}`;
      // The database is released before the refusal is reported (an embedded one holds a lock).
      void Promise.all([readDb?.close(), instance.close().then(() => db.close())]).finally(() =>
        reject(new StartupError(reason)),
      );
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  log.info(
    { port, host: config.HOST, paymentsMode: config.PAYMENTS_MODE },
    `listening on http://${config.HOST}:${port}`,
  );

  const sweeper = startOrphanSweep({ db: lanes.background, log, now: systemClock });
  leadership.start();

  return {
    server,
    port,
    db,
    async close() {
      draining = true;
      // The listener closes (new connections are refused) while in-flight calls finish; meanwhile the ingest
      // jobs stop and the leader lock goes, so a follower can take over without waiting for the drain.
      await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), leadership.stop()]);
      await sweeper.stop();
      // Only once no call is in flight: the instance lock vouches for this process's unanswered payments.
      await instance.close();
      await readDb?.close();
      await db.close();
    },
  };
}

/** Real money is never taken for answers built from the synthetic (benchmark/demo) corpus. */
async function refuseSyntheticDataForRealPayments(db: Db, config: Config): Promise<void> {
  if (config.PAYMENTS_MODE === "x402" && (await hasSyntheticTenders(db))) {
    await db.close();
    throw new StartupError(
      "refusing to start with PAYMENTS_MODE=x402: the database holds synthetic tenders (seed --synthetic); " +
        "use another DATA_DIR or DATABASE_URL for production",
    );
  }
}

/** A start-up refusal that is the operator's to fix: printed as one line, not as a stack trace. */
export class StartupError extends Error {
  override name = "StartupError";
}

async function loadReferenceData(db: Db, config: Config, log: Logger): Promise<void> {
  if (config.CPV_LABELS) {
    const result = await loadCpvLabels(db, config.CPV_LABELS);
    log.info({ source: config.CPV_LABELS, ...result }, "CPV labels loaded");
  }
  if (config.NUTS_LABELS) {
    const result = await loadNutsNames(db, config.NUTS_LABELS);
    log.info({ source: config.NUTS_LABELS, ...result }, "NUTS names loaded");
  }
}

/** How long a signalled server waits for in-flight work (requests, an ingest batch) before it exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Process entry: parse the environment, start, and stop cleanly on SIGINT/SIGTERM. */
export async function runFromEnvironment(env: Record<string, string | undefined>): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger(config.LOG_LEVEL);
  let running: RunningServer;
  try {
    running = await startServer(config, log);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
    } else if (error instanceof StartupError || error instanceof DataDirLockedError) {
      process.stderr.write(`start-up refused: ${error.message}\n`);
    } else {
      log.fatal({ err: error }, "start-up failed");
    }
    process.exit(1);
  }
  // Ctrl-C on `npm start` reaches npm and the server, and npm forwards it: a second signal within a second is
  // that echo and is ignored. A later one, or a shutdown still waiting after SHUTDOWN_GRACE_MS (a scheduled
  // ingest retrying an unreachable upstream), exits at once; the exit handler still releases the embedded
  // database's lock.
  let stoppingSince: number | null = null;
  const stop = async (signal: string) => {
    if (stoppingSince !== null) {
      if (Date.now() - stoppingSince > 1_000) {
        log.warn({ signal }, "second signal: exiting without waiting");
        process.exit(130);
      }
      return;
    }
    stoppingSince = Date.now();
    log.info({ signal }, "shutting down");
    setTimeout(() => {
      log.warn({ graceMs: SHUTDOWN_GRACE_MS }, "shutdown still waiting: exiting");
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    await running.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
