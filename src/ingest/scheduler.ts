import { type Config, scheduleIntervalMs } from "../config.ts";
import type { Logger } from "../lib/logger.ts";
import { httpOptionsFrom, isPlacspFeed, placspFeedUrl, tedQueryFrom } from "./http-options.ts";
import { ingestPlacsp } from "./placsp/ingest-placsp.ts";
import type { IngestDeps } from "./run-context.ts";
import { ingestTed } from "./ted/ingest-ted.ts";

export interface Scheduler {
  stop(): Promise<void>;
}

/** First poll shortly after start-up, so the API is serving before any upstream traffic begins. */
const FIRST_RUN_DELAY_MS = 5_000;

/**
 * Polls the upstreams inside the server process, each source on its own interval: the PLACSP feeds every
 * `INGEST_SCHEDULE`, the TED Search API every `INGEST_TED_SCHEDULE`. `INGEST_SCHEDULE=off` turns all of it
 * off (so a deployment that disabled scheduled ingestion before TED existed makes no upstream requests);
 * `INGEST_TED_SCHEDULE=off` turns off TED only. Null when nothing is scheduled.
 *
 * A failing upstream is logged once per attempt, with its reason, and tried again at the next tick; it never
 * stops the API. A source's runs never overlap: a tick that finds its previous round still running is
 * skipped. The two sources run independently of each other.
 */
export function startIngestScheduler(deps: IngestDeps, config: Config): Scheduler | null {
  const placspInterval = scheduleIntervalMs(config.INGEST_SCHEDULE);
  if (placspInterval === null) {
    deps.log.info("scheduled ingestion is off (INGEST_SCHEDULE=off)");
    return null;
  }
  const feeds = config.INGEST_PLACSP_FEEDS.split(",").filter(isPlacspFeed);
  const loops = [
    every(deps.log, "placsp", placspInterval, async () => {
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
    }),
  ];
  deps.log.info({ every: config.INGEST_SCHEDULE, feeds }, "scheduled ingestion on");

  const tedInterval = scheduleIntervalMs(config.INGEST_TED_SCHEDULE);
  if (tedInterval === null) {
    deps.log.info("scheduled TED ingestion is off (INGEST_TED_SCHEDULE=off)");
  } else {
    loops.push(
      every(deps.log, "ted", tedInterval, async () => {
        try {
          await ingestTed(deps, {
            source: config.TED_API_URL,
            since: null,
            maxNotices: null,
            batchSize: 250,
            http: httpOptionsFrom(config, deps.log),
            query: tedQueryFrom(config),
            lookbackDays: config.TED_LOOKBACK_DAYS,
          });
        } catch (error) {
          deps.log.error(
            { source: config.TED_API_URL, reason: error instanceof Error ? error.message : String(error) },
            "scheduled ted ingest failed; will retry at the next tick",
          );
        }
      }),
    );
    deps.log.info(
      { every: config.INGEST_TED_SCHEDULE, api: config.TED_API_URL },
      "scheduled TED ingestion on",
    );
  }
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}

/** Runs `round` every `interval` ms (first after at most 5 s), never two at a time. */
function every(log: Logger, name: string, interval: number, round: () => Promise<void>): Scheduler {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) {
      log.warn({ source: name }, "previous ingestion round still running; skipping this tick");
      return;
    }
    running = round().finally(() => {
      running = null;
    });
  };
  const first = setTimeout(tick, Math.min(FIRST_RUN_DELAY_MS, interval));
  const timer = setInterval(tick, interval);
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
