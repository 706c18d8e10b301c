import type { EntryFailure, IngestVersion } from "../apply-batch.ts";
import type { Tombstone } from "../model.ts";
import type { IngestRun } from "../run-context.ts";
import type { FeedLink } from "./parse.ts";
import type { PageParser } from "./parse-thread.ts";

export interface PageOptions {
  /** PLACSP feed id (`643`, `1044`, `1143`) when known. */
  feed: string | null;
  /** Entries per transaction; a page of 500 entries is one or a few batches. */
  batchSize: number;
  /** Entries older than this instant (`…Z`) are skipped (the `--since` option). */
  since: string | null;
  /** Where the page is parsed: inline, or on the run's parse thread. */
  parser: PageParser;
}

export interface PageResult {
  links: FeedLink[];
  /** Oldest and newest entry version time seen on the page (null when it has no entries). */
  oldest: string | null;
  newest: string | null;
  entries: number;
}

/**
 * Streams one ATOM page through parse → normalize (by `options.parser`) → apply, committing every `batchSize` entries.
 * An entry that cannot be normalized is recorded as an error and skipped; the rest of the page goes on. If the page
 * itself is broken (not ATOM, truncated), what was complete before the break is committed and the error propagates: the
 * run fails and its checkpoint stays where it was.
 */
export async function ingestPlacspPage(
  run: IngestRun,
  body: AsyncIterable<string | Uint8Array>,
  options: PageOptions,
): Promise<PageResult> {
  const result: PageResult = { links: [], oldest: null, newest: null, entries: 0 };
  let versions: IngestVersion[] = [];
  let tombstones: Tombstone[] = [];
  let failures: EntryFailure[] = [];
  const batchSize = run.batchLimit(options.batchSize);
  // One batch is written while the next one is parsed: the database and the CPU work at the same time.
  // Batches still commit strictly in order, one at a time.
  let writing: Promise<unknown> = Promise.resolve();
  const flush = async (pages: number) => {
    const batch = { source: "placsp" as const, versions, tombstones, failures };
    versions = [];
    tombstones = [];
    failures = [];
    await writing;
    writing = run.commit(batch, pages);
  };

  try {
    const items = options.parser.items(body, { feed: options.feed, pace: () => run.pace() });
    for await (const item of items) {
      if (item.kind === "feed") {
        result.links = item.links;
      } else if (item.kind === "tombstone") {
        tombstones.push(item.tombstone);
      } else if (item.kind === "failure") {
        result.entries++;
        failures.push(item.failure);
      } else {
        result.entries++;
        const updated = item.version.tender.upstreamUpdated;
        result.oldest = result.oldest === null || updated < result.oldest ? updated : result.oldest;
        result.newest = result.newest === null || updated > result.newest ? updated : result.newest;
        if (options.since === null || updated >= options.since) {
          versions.push(item.version);
        }
      }
      if (versions.length + tombstones.length + failures.length >= batchSize) {
        await flush(0);
      }
    }
  } catch (error) {
    await flush(0);
    await writing;
    throw error;
  }
  await flush(1);
  await writing;
  return result;
}
