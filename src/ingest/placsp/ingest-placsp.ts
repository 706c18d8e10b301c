import { setTimeout as delay } from "node:timers/promises";
import { afterIngestRun } from "../../analytics/after-ingest.ts";
import { advanceCheckpoint, getCheckpoint } from "../../db/queries/ingest-runs.ts";
import { type IngestDeps, IngestRun } from "../run-context.ts";
import { classifySource, openPageSource, type SourcePage } from "../sources/archives.ts";
import { nextHref } from "../sources/feed-walk.ts";
import { backoffDelay, classifyError, type HttpOptions } from "../sources/http.ts";
import { XmlError } from "../xml/reader.ts";
import { ingestPlacspPage } from "./ingest-page.ts";
import { inlineParser, type PageParser, startParseThread } from "./parse-thread.ts";

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
    {
      runId: run.id,
      source: options.source,
      kind,
      feed,
      cursor,
      since,
      parse: deps.parseThread ? "thread" : "inline",
    },
    "placsp ingest started",
  );
  let parser: PageParser = inlineParser;
  try {
    if (deps.parseThread) {
      parser = startParseThread();
    }
    const pages = openPageSource(options.source, {
      http: options.http,
      ...(options.maxPages === null ? {} : { maxPages: options.maxPages }),
    });
    let pendingNext: string | null = null;
    for await (const page of pages) {
      // A directory or archive can mix feeds; their page names say which.
      const pageFeed = feed ?? feedOf(page.name);
      const result = await readPageWithRetry(page, options.http, (body) =>
        ingestPlacspPage(run, body, { feed: pageFeed, batchSize: options.batchSize, since, parser }),
      );
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
  } finally {
    await parser.close();
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

/**
 * Ingests a page, reading a live feed page again when its read breaks off: a transfer cut short (reset,
 * stalled past the idle timeout) or a document that ends before its root closes (a body truncated though the
 * transfer looked complete). Within the HTTP retry budget, with the same backoff; the entries committed before
 * the break are applied again, which changes nothing (the upsert is idempotent). A malformed page, or a page
 * from an archive or a file, fails at once.
 */
async function readPageWithRetry<T>(
  page: SourcePage,
  http: HttpOptions,
  read: (body: AsyncIterable<Uint8Array>) => Promise<T>,
): Promise<T> {
  const sleep = http.sleep ?? ((ms: number) => delay(ms, undefined, { signal: http.signal }));
  let body = page.body;
  for (let attempt = 1; ; attempt++) {
    try {
      return await read(body);
    } catch (error) {
      http.signal?.throwIfAborted();
      const reason = brokenTransfer(error);
      if (page.refetch === undefined || reason === null || attempt > http.retries) {
        throw error;
      }
      const delayMs = backoffDelay(attempt, http);
      http.onRetry?.({ attempt, delayMs, reason: `page read broke off, reading it again: ${reason}` });
      await sleep(delayMs);
      body = await page.refetch();
    }
  }
}

/** Why a page read broke off in a way another read may cure; null for any other failure. */
function brokenTransfer(error: unknown): string | null {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof XmlError && e.truncated) {
      return e.message;
    }
  }
  const { reason, transient } = classifyError(error);
  return transient ? reason : null;
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
