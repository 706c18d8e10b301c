import type { Worker } from "node:worker_threads";
import type { Config } from "../config.ts";
import type { Logger } from "../lib/logger.ts";
import { startModuleWorker } from "../lib/module-worker.ts";
import type { LeaderJobs } from "./ingest-leader.ts";

/** What the server tells the ingest thread (fleet/leader-worker.ts). */
export type ToLeaderThread = { t: "start"; config: Config; level: string } | { t: "stop" };
/** What the ingest thread tells the server: its log lines (pino's JSON), and that its jobs have stopped. */
export type FromLeaderThread = { t: "log"; line: string } | { t: "stopped" };

/**
 * Connections of the ingest thread's own pool: one per job that can run at once (the PLACSP and TED schedules,
 * the import folder, lead retention), each of which holds at most one at a time. Counted in docs/deploy.md,
 * "Connections".
 */
export const LEADER_THREAD_POOL_SIZE = 4;
/** After the thread dies under its jobs (it should not), it is started again this much later. */
const RESTART_MS = 10_000;

export interface LeaderThreadOptions {
  restartMs: number;
  /** Starts the thread (tests start one that dies). */
  startWorker: () => Worker;
}

/**
 * The leader's jobs (fleet/leader-jobs.ts) on a worker thread of their own, with their own PostgreSQL pool: an
 * ingest run's JavaScript (normalizing, resolving parties, building each batch's statements, the recompute after
 * it) then never runs between the serving thread's requests. Measured at 100,000 awards, 10,000 entries
 * (bench/results/api.md, runs 24a–24d): with the ingest on the serving thread its event loop stood still for up to
 * 743–791 ms during a run and each search's p50 was a median 1.17–1.23× its steady state; on this thread the
 * longest delay was 38–53 ms and the median 1.05–1.07×.
 * Their log lines are the server's, with `thread: "ingest"`. Stopping waits for a round in progress, as in process.
 * PostgreSQL only: the embedded engine is one connection, owned by the serving thread.
 */
export function startLeaderJobsOnThread(
  config: Config,
  log: Logger,
  options: LeaderThreadOptions = {
    restartMs: RESTART_MS,
    startWorker: () => startModuleWorker(import.meta.url, "leader-worker"),
  },
): LeaderJobs {
  let stopping = false;
  let running: { worker: Worker; exited: Promise<void>; stopped: Promise<void> } | null = null;
  let restart: NodeJS.Timeout | null = null;

  const launch = () => {
    restart = null;
    const worker = options.startWorker();
    let markStopped = () => {};
    const stopped = new Promise<void>((resolve) => {
      markStopped = resolve;
    });
    const exited = new Promise<void>((resolve) => {
      worker.once("exit", (code) => {
        markStopped();
        running = null;
        if (!stopping) {
          log.error(
            { code, restartInMs: options.restartMs },
            "the ingest thread stopped unexpectedly; starting it again",
          );
          restart = setTimeout(launch, options.restartMs);
        }
        resolve();
      });
    });
    worker.on("message", (message: FromLeaderThread) => {
      if (message.t === "log") {
        relayLogLine(log, message.line);
      } else {
        markStopped();
      }
    });
    worker.on("error", (error) => log.error({ reason: error.message }, "the ingest thread failed"));
    worker.postMessage({ t: "start", config, level: log.level } satisfies ToLeaderThread);
    running = { worker, exited, stopped };
  };
  launch();

  return {
    async stop() {
      stopping = true;
      if (restart) {
        clearTimeout(restart);
      }
      const current = running;
      if (!current) {
        return;
      }
      current.worker.postMessage({ t: "stop" } satisfies ToLeaderThread);
      await current.stopped;
      // Its jobs and pool are closed; whatever else it still holds (a timer, a socket) must not keep it alive.
      await current.worker.terminate();
      await current.exited;
    },
  };
}

const PINO_OWN_FIELDS = new Set(["level", "time", "pid", "hostname", "service", "msg"]);

/** One of the thread's log lines, logged again by the server's logger (its level, stream and base fields). */
export function relayLogLine(log: Logger, line: string): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    log.warn({ line, thread: "ingest" }, "unreadable log line from the ingest thread");
    return;
  }
  const fields: Record<string, unknown> = { thread: "ingest" };
  for (const [key, value] of Object.entries(parsed)) {
    if (!PINO_OWN_FIELDS.has(key)) {
      fields[key] = value;
    }
  }
  const label = log.levels.labels[Number(parsed.level)];
  const message = typeof parsed.msg === "string" ? parsed.msg : "";
  switch (label) {
    case "fatal":
    case "error":
    case "warn":
    case "debug":
    case "trace":
      log[label](fields, message);
      break;
    default:
      log.info(fields, message);
  }
}
