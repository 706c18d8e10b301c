import { parentPort } from "node:worker_threads";
import { type Db, openDb } from "../db/client.ts";
import { createLogger } from "../lib/logger.ts";
import type { LeaderJobs } from "./ingest-leader.ts";
import { startLeaderJobs } from "./leader-jobs.ts";
import { type FromLeaderThread, LEADER_THREAD_POOL_SIZE, type ToLeaderThread } from "./leader-thread.ts";

/**
 * The ingest thread (fleet/leader-thread.ts): runs the leader's jobs on a PostgreSQL pool of its own and hands its
 * log lines to the server, until told to stop.
 */
const port = parentPort;
if (!port) {
  throw new Error("leader-worker.ts runs as a worker thread (fleet/leader-thread.ts)");
}
const post = (message: FromLeaderThread) => port.postMessage(message);
let started: Promise<{ db: Db; jobs: LeaderJobs }> | null = null;

port.on("message", (message: ToLeaderThread) => {
  if (message.t === "start") {
    const { config } = message;
    const log = createLogger(message.level, (line) => post({ t: "log", line }));
    started = openDb({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      poolSize: LEADER_THREAD_POOL_SIZE,
    }).then((db) => ({ db, jobs: startLeaderJobs(db, config, log) }));
    return;
  }
  void (async () => {
    const current = await started;
    await current?.jobs.stop();
    await current?.db.close();
    post({ t: "stopped" });
    port.close();
  })();
});
