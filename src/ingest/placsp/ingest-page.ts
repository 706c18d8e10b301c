import { createHash } from "node:crypto";
import type { EntryFailure, IngestVersion } from "../apply-batch.ts";
import type { Tombstone } from "../model.ts";
import type { IngestRun } from "../run-context.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, text } from "../xml/element.ts";
import { NS } from "./namespaces.ts";
import { normalizePlacspEntry } from "./normalize.ts";
import { type FeedLink, readPlacspFeed } from "./parse.ts";

export interface PageOptions {
  /** PLACSP feed id (`643`, `1044`, `1143`) when known. */
  feed: string | null;
  /** Entries per transaction; a page of 500 entries is one or a few batches. */
  batchSize: number;
  /** Entries older than this instant (`…Z`) are skipped (the `--since` option). */
  since: string | null;
}

export interface PageResult {
  links: FeedLink[];
  /** Oldest and newest entry version time seen on the page (null when it has no entries). */
  oldest: string | null;
  newest: string | null;
  entries: number;
}

/**
 * Streams one ATOM page through parse → normalize → apply, committing every `batchSize` entries. An entry that
 * cannot be normalized is recorded as an error and skipped; the rest of the page goes on. If the page itself is
 * broken (not ATOM, truncated), what was complete before the break is committed and the error propagates: the
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
    for await (const item of readPlacspFeed(body)) {
      await run.pace();
      if (item.kind === "feed") {
        result.links = item.links;
      } else if (item.kind === "tombstone") {
        tombstones.push(item.tombstone);
      } else {
        result.entries++;
        const normalized = normalizeOrFail(item.element, item.raw, options.feed);
        if ("failure" in normalized) {
          failures.push(normalized.failure);
        } else {
          const updated = normalized.tender.upstreamUpdated;
          result.oldest = result.oldest === null || updated < result.oldest ? updated : result.oldest;
          result.newest = result.newest === null || updated > result.newest ? updated : result.newest;
          if (options.since === null || updated >= options.since) {
            versions.push(normalized);
          }
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

function normalizeOrFail(
  entry: XmlElement,
  raw: string,
  feed: string | null,
): IngestVersion | { failure: EntryFailure } {
  try {
    const normalized = normalizePlacspEntry(entry, { feed });
    return { ...normalized, rawHash: rawEntryHash(raw) };
  } catch (error) {
    return {
      failure: {
        entryRef: text(child(entry, NS.atom, "id")) ?? attr(entry, "id"),
        reason: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

/**
 * SHA-256 of the entry exactly as published, without its `<updated>` element: `updated` changes on every
 * re-publication (it is the version time, not content), so an identical re-publication hashes the same. The
 * entry's own `updated` is the only element of that name in a PLACSP entry (CODICE has none).
 */
export function rawEntryHash(raw: string): string {
  return createHash("sha256")
    .update(raw.replace(/<([A-Za-z_][\w.-]*:)?updated\b[^>]*>[^<]*<\/\1?updated\s*>/, ""))
    .digest("hex");
}
