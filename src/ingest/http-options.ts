import type { Config } from "../config.ts";
import type { Logger } from "../lib/logger.ts";
import type { HttpOptions } from "./sources/http.ts";
import type { TedQueryConfig } from "./ted/ingest-ted.ts";

/** Upstream HTTP settings from configuration; every retry is logged with its reason. */
export function httpOptionsFrom(config: Config, log: Logger): HttpOptions {
  return {
    userAgent: config.INGEST_USER_AGENT,
    timeoutMs: config.INGEST_HTTP_TIMEOUT_MS,
    retries: config.INGEST_HTTP_RETRIES,
    baseDelayMs: 1_000,
    maxDelayMs: 60_000,
    onRetry: (info) => log.warn(info, "upstream request failed; retrying"),
  };
}

/** The configured head URL of a PLACSP feed. */
export function placspFeedUrl(config: Config, feed: "643" | "1044" | "1143"): string {
  return {
    "643": config.PLACSP_FEED_643_URL,
    "1044": config.PLACSP_FEED_1044_URL,
    "1143": config.PLACSP_FEED_1143_URL,
  }[feed];
}

export const PLACSP_FEEDS = ["643", "1044", "1143"] as const;
export type PlacspFeed = (typeof PLACSP_FEEDS)[number];

export function isPlacspFeed(value: string): value is PlacspFeed {
  return (PLACSP_FEEDS as readonly string[]).includes(value);
}

/** What the TED Search API is asked for, from `TED_QUERY`, `TED_CPV_PREFIXES` and `TED_BUYER_COUNTRIES`. */
export function tedQueryFrom(config: Config): TedQueryConfig {
  return {
    apiQuery: config.TED_QUERY ?? null,
    cpvPrefixes: config.TED_CPV_PREFIXES?.split(",") ?? [],
    countries: config.TED_BUYER_COUNTRIES.split(","),
  };
}
