import { createHash } from "node:crypto";
import type { EntryFailure, IngestVersion } from "../apply-batch.ts";
import type { Tombstone } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, text } from "../xml/element.ts";
import { NS } from "./namespaces.ts";
import { normalizePlacspEntry } from "./normalize.ts";
import { type FeedLink, readPlacspFeed } from "./parse.ts";

/**
 * What the writer needs from one PLACSP page, in document order: the header's links, then each tombstone, each
 * normalized entry version and each entry that could not be normalized. Plain data only (strings, numbers,
 * arrays), so that a parse thread can hand it over as it is (placsp/parse-thread.ts).
 */
export type PageItem =
  | { kind: "feed"; links: FeedLink[] }
  | { kind: "tombstone"; tombstone: Tombstone }
  | { kind: "version"; version: IngestVersion }
  | { kind: "failure"; failure: EntryFailure };

export interface PageItemOptions {
  /** PLACSP feed id (`643`, `1044`, `1143`) when known. */
  feed: string | null;
  /** Awaited before each item: where a parse on the serving thread lets requests take their turn (db/lanes.ts). */
  pace?: () => Promise<void>;
}

/**
 * Parses and normalizes one ATOM page on this thread. An entry that cannot be normalized becomes a `failure` item
 * and the page goes on; a page that is not ATOM or breaks off throws `PlacspFeedError` (parse.ts) after the items
 * completed before the break.
 */
export async function* readPageItems(
  body: AsyncIterable<string | Uint8Array>,
  options: PageItemOptions,
): AsyncGenerator<PageItem, void, undefined> {
  for await (const item of readPlacspFeed(body)) {
    await options.pace?.();
    if (item.kind === "feed") {
      yield { kind: "feed", links: item.links };
    } else if (item.kind === "tombstone") {
      yield item;
    } else {
      yield normalizeOrFail(item.element, item.raw, options.feed);
    }
  }
}

function normalizeOrFail(entry: XmlElement, raw: string, feed: string | null): PageItem {
  try {
    const normalized = normalizePlacspEntry(entry, { feed });
    return { kind: "version", version: { ...normalized, rawHash: rawEntryHash(raw) } };
  } catch (error) {
    return {
      kind: "failure",
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
