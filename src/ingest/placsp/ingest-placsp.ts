import { afterIngestRun } from "../../analytics/after-ingest.ts";
import { advanceCheckpoint, getCheckpoint } from "../../db/queries/ingest-runs.ts";
import { type IngestDeps, IngestRun } from "../run-context.ts";
import { classifySource, openPageSource } from "../sources/archives.ts";
import { nextHref } from "../sources/feed-walk.ts";
import type { HttpOptions } from "../sources/http.ts";
import { ingestPlacspPage } from "./ingest-page.ts";

export interface PlacspIngestOptions {
  /** Head URL of a live feed, URL or path of a ZIP archive, an `.atom` file or a directory of them. */
  source: string;
  /** `643`, `1044` or `1143`; derived from the source when null. */
  feed: string | null;
  /** Only entries updated on or after this day (UTC) are applied; the walk stops below it. */
  since: string | null;
  /** At most this many pages. */
  maxPages: number | null;
  /** Entries per transaction. */
  batchSize: number;
  http: HttpOptions;
}

export interface PlacspIngestSummary {
  runId: number;
  source: string;
  feed: string | null;
  pages: number;
  entriesNew: number;
  entriesUpdated: number;
  entriesUnchanged: number;
  errors: number;
  /** The checkpoint after the run (live feeds only). */
  checkpoint: string | null;
}

/**
 * One PLACSP ingest run. A live feed is walked from its head (newest page) along `rel="next"` and stops at the
 * page that reaches the previous run's checkpoint (or `since`, or `maxPages`). Archives, files and directories
 * are read whole, in any order: the upsert is order-independent.
 *
 * The checkpoint moves only when the whole walk has committed: a run killed at any point is simply walked
 * again from the head by the next run, re-applying what it had already applied (a no-op), so the database ends
 * exactly as after an uninterrupted run. A walk cut short by `maxPages` before reaching the checkpoint does
 * not move it either (the pages it did not reach would otherwise be skipped for good); only a first run,
 * which has no checkpoint yet, sets one from a cut-short walk: history older than that is back-filled from
 * the ZIP archives.
 */
export async function ingestPlacsp(
  deps: IngestDeps,
  options: PlacspIngestOptions,
): Promise<PlacspIngestSummary> {
  const kind = await classifySource(options.source);
  const feed = options.feed ?? feedOf(options.source);
  const checkpointKey = kind === "url-feed" ? `placsp:${feed ?? options.source}` : null;
  const checkpoint = checkpointKey ? await getCheckpoint(deps.db, checkpointKey) : undefined;
  const cursor = checkpoint?.cursorUpdated?.toISOString() ?? null;
  const since = options.since === null ? null : `${options.since}T00:00:00.000Z`;

  const run = await IngestRun.start(deps, { source: "placsp", feed, location: options.source });
  deps.log.info(
    { runId: run.id, source: options.source, kind, feed, cursor, since },
    "placsp ingest started",
  );
  try {
    const pages = openPageSource(options.source, {
      http: options.http,
      ...(options.maxPages === null ? {} : { maxPages: options.maxPages }),
    });
    let pendingNext: string | null = null;
    for await (const page of pages) {
      // A directory or archive can mix feeds; their page names say which.
      const pageFeed = feed ?? feedOf(page.name);
      const result = await ingestPlacspPage(run, page.body, {
        feed: pageFeed,
        batchSize: options.batchSize,
        since,
      });
      // Older pages hold nothing newer than what this page reached.
      const reachedCursor = cursor !== null && result.oldest !== null && result.oldest <= cursor;
      const reachedSince = since !== null && result.oldest !== null && result.oldest < since;
      pendingNext = reachedCursor || reachedSince ? null : nextHref(result.links);
      page.setNext(pendingNext);
      deps.log.debug({ runId: run.id, page: page.name, entries: result.entries }, "placsp page committed");
    }
    const cutShort = pendingNext !== null;
    if (checkpointKey && run.newest && (!cutShort || cursor === null)) {
      await advanceCheckpoint(deps.db, checkpointKey, { ...run.newest, runId: run.id });
    } else if (checkpointKey && cutShort) {
      deps.log.warn(
        { runId: run.id, maxPages: options.maxPages, cursor },
        "walk stopped at max pages before reaching the checkpoint; the checkpoint stays (raise the page limit)",
      );
    }
    await run.finish();
  } catch (error) {
    await run.finish(error);
    deps.log.warn({ runId: run.id, err: error }, "placsp ingest failed");
    throw error;
  }
  // Cross-source links and the aggregates over awards follow the data: only what this run changed is redone.
  await afterIngestRun({ db: deps.db, log: deps.log, now: deps.now });
  const after = checkpointKey ? await getCheckpoint(deps.db, checkpointKey) : undefined;
  const summary: PlacspIngestSummary = {
    runId: run.id,
    source: options.source,
    feed,
    ...run.totals,
    checkpoint: after?.cursorUpdated?.toISOString() ?? null,
  };
  deps.log.info(summary, "placsp ingest finished");
  return summary;
}

const FEED_MARKERS: readonly [RegExp, string][] = [
  [/sindicacion_643|licitacionesPerfilesContratante/i, "643"],
  [/sindicacion_1044|PlataformasAgregadasSinMenores/i, "1044"],
  [/sindicacion_1143|contratosMenores/i, "1143"],
];

/** The feed id from the source's URL or file name, as PLACSP names them; null when unrecognisable. */
export function feedOf(source: string): string | null {
  return FEED_MARKERS.find(([pattern]) => pattern.test(source))?.[1] ?? null;
}
