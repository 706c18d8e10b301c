import { type Config, scheduleIntervalMs } from "../config.ts";
import { httpOptionsFrom, isPlacspFeed, placspFeedUrl } from "./http-options.ts";
import { ingestPlacsp } from "./placsp/ingest-placsp.ts";
import type { IngestDeps } from "./run-context.ts";

export interface Scheduler {
  stop(): Promise<void>;
}

/** First poll shortly after start-up, so the API is serving before any upstream traffic begins. */
const FIRST_RUN_DELAY_MS = 5_000;

/**
 * Polls the configured PLACSP feeds inside the server process. A failing upstream is logged once per attempt,
 * with its reason, and tried again at the next tick; it never stops the API. Runs never overlap: a tick that
 * finds the previous round still running is skipped.
 */
export function startIngestScheduler(deps: IngestDeps, config: Config): Scheduler | null {
  const interval = scheduleIntervalMs(config.INGEST_SCHEDULE);
  if (interval === null) {
    deps.log.info("scheduled ingestion is off (INGEST_SCHEDULE=off)");
    return null;
  }
  const feeds = config.INGEST_PLACSP_FEEDS.split(",").filter(isPlacspFeed);
  let running: Promise<void> | null = null;
  const round = async () => {
    for (const feed of feeds) {
      try {
        await ingestPlacsp(deps, {
          source: placspFeedUrl(config, feed),
          feed,
          since: null,
          maxPages: config.INGEST_MAX_PAGES,
          batchSize: 500,
          http: httpOptionsFrom(config, deps.log),
        });
      } catch (error) {
        deps.log.error(
          { feed, reason: error instanceof Error ? error.message : String(error) },
          "scheduled placsp ingest failed; will retry at the next tick",
        );
      }
    }
  };
  const tick = () => {
    if (running) {
      deps.log.warn("previous ingestion round still running; skipping this tick");
      return;
    }
    running = round().finally(() => {
      running = null;
    });
  };
  const first = setTimeout(tick, Math.min(FIRST_RUN_DELAY_MS, interval));
  const timer = setInterval(tick, interval);
  deps.log.info({ every: config.INGEST_SCHEDULE, feeds }, "scheduled ingestion on");
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
