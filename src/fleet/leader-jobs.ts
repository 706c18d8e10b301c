import { type Config, scheduleIntervalMs } from "../config.ts";
import type { Db } from "../db/client.ts";
import { startRetentionJob } from "../domain/leads/leads.ts";
import { httpOptionsFrom, tedQueryFrom } from "../ingest/http-options.ts";
import { startImportFolder } from "../ingest/import-folder.ts";
import { startIngestScheduler } from "../ingest/scheduler.ts";
import { systemClock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { LeaderJobs } from "./ingest-leader.ts";

/**
 * What the ingest leader runs (fleet/ingest-leader.ts): the feed and TED schedule, the import folder and lead
 * retention, on `db`. Stopping waits for a round in progress. On PostgreSQL the server runs them on a thread of
 * their own (fleet/leader-thread.ts); on the embedded engine on its serving thread, in the background lane.
 */
export function startLeaderJobs(db: Db, config: Config, log: Logger): LeaderJobs {
  // Pages are parsed on a thread of their own: the thread that runs the jobs also writes what they read.
  const scheduler = startIngestScheduler({ db, log, now: systemClock, parseThread: true }, config);
  const importInterval = scheduleIntervalMs(config.IMPORT_SCHEDULE);
  const imports =
    importInterval === null
      ? null
      : startImportFolder(
          // A server taking real payments never imports the synthetic corpus (as it never starts on one).
          { db, log, now: systemClock, parseThread: true, refuseSynthetic: config.PAYMENTS_MODE === "x402" },
          {
            dir: config.IMPORT_DIR,
            intervalMs: importInterval,
            http: httpOptionsFrom(config, log),
            ted: { query: tedQueryFrom(config), lookbackDays: config.TED_LOOKBACK_DAYS },
          },
        );
  const retentionInterval = scheduleIntervalMs(config.RETENTION_SCHEDULE);
  // First run a minute after taking the lead (the API serves first), then every RETENTION_SCHEDULE.
  const retention =
    retentionInterval === null
      ? null
      : startRetentionJob(
          { db, log, now: systemClock },
          { intervalMs: retentionInterval, firstDelayMs: Math.min(60_000, retentionInterval) },
        );
  return {
    async stop() {
      await Promise.all([scheduler?.stop(), imports?.stop(), retention?.stop()]);
    },
  };
}
