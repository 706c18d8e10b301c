import { parseIsoInstant } from "../../lib/dates.ts";
import type { Tombstone } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, text } from "../xml/element.ts";
import { readXmlElements, XmlError } from "../xml/reader.ts";
import { NS } from "./namespaces.ts";

/**
 * Streams one PLACSP ATOM page (10–30 MB) into feed items without holding the page in memory: only the
 * feed header's small elements and one entry or tombstone at a time are materialized.
 */

/** The page is not a PLACSP ATOM feed, or not well-formed (including truncated). */
export class PlacspFeedError extends Error {
  override readonly name = "PlacspFeedError";
}

export interface FeedLink {
  /** `rel` as published; ATOM's default `alternate` when absent. */
  rel: string;
  /** As published: relative in some pages, absolute in others. Resolve against the fetched page URL. */
  href: string;
}

export type PlacspFeedItem =
  /** The page header; `updated` is a UTC `…Z` instant, or null if absent or unparseable. */
  | { kind: "feed"; links: FeedLink[]; updated: string | null; id: string | null }
  /** One `atom:entry`, to be handed to `normalizePlacspEntry`, with its raw XML text as published. */
  | { kind: "entry"; element: XmlElement; raw: string }
  | { kind: "tombstone"; tombstone: Tombstone };

/**
 * Yields, in order: one `feed` item (as soon as the first entry or tombstone starts the body, so after the
 * header's links; or at the end of a page without any), then one item per `at:deleted-entry` and
 * `atom:entry` in document order.
 *
 * Throws `PlacspFeedError`:
 * - at the first start tag, if the root is not ATOM `<feed>` (an HTML error page served with status 200);
 * - if the input is not well-formed XML, has a DOCTYPE or unknown entities;
 * - if the page ends early (truncated download). The entries and tombstones completed before the cut have
 *   been yielded by then; each is a full snapshot and safe to apply, but the caller must not advance its
 *   paging cursor past a page that threw.
 * - for a tombstone without `ref` or a valid `when`: a deletion must not be dropped silently.
 */
export async function* readPlacspFeed(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<PlacspFeedItem, void, undefined> {
  const links: FeedLink[] = [];
  let id: string | null = null;
  let updated: string | null = null;
  let headerSent = false;
  const header = (): PlacspFeedItem => {
    headerSent = true;
    return { kind: "feed", links: [...links], updated, id };
  };

  const elements = readXmlElements(input, {
    select: (ns, name, depth) =>
      depth === 1 && (selectedAtom(ns, name) || (ns === NS.at && name === "deleted-entry")),
  });
  try {
    for await (const item of elements) {
      if (item.kind === "root") {
        if (item.ns !== NS.atom || item.name !== "feed") {
          const where = item.ns === "" ? "" : ` (namespace ${item.ns})`;
          throw new PlacspFeedError(`not an ATOM feed: root element is <${item.name}>${where}`);
        }
        continue;
      }
      const el = item.element;
      if (el.ns === NS.atom && el.name !== "entry") {
        if (el.name === "link") {
          const href = attr(el, "href");
          if (href !== null) {
            links.push({ rel: attr(el, "rel") ?? "alternate", href });
          }
        } else if (el.name === "id") {
          id = text(el);
        } else {
          const value = text(el);
          updated = value === null ? null : parseIsoInstant(value);
        }
        continue;
      }
      if (!headerSent) {
        yield header();
      }
      yield el.ns === NS.at
        ? { kind: "tombstone", tombstone: readTombstone(el) }
        : { kind: "entry", element: el, raw: item.raw };
    }
  } catch (err) {
    if (err instanceof XmlError) {
      throw new PlacspFeedError(`not a well-formed ATOM feed: ${err.message}`, { cause: err });
    }
    throw err;
  }
  if (!headerSent) {
    yield header();
  }
}

function selectedAtom(ns: string, name: string): boolean {
  return ns === NS.atom && (name === "entry" || name === "link" || name === "id" || name === "updated");
}

/** RFC 6721: `<at:deleted-entry ref="{entry id}" when="…"><at:comment type="ANULADA"/>…`. */
function readTombstone(el: XmlElement): Tombstone {
  const ref = attr(el, "ref");
  const when = attr(el, "when");
  const deletedAt = when === null ? null : parseIsoInstant(when);
  if (ref === null || deletedAt === null) {
    throw new PlacspFeedError(
      `malformed at:deleted-entry: ref=${JSON.stringify(ref)} when=${JSON.stringify(when)}`,
    );
  }
  return {
    source: "placsp",
    sourceRef: ref,
    deletedAt,
    reason: attr(child(el, NS.at, "comment"), "type"),
  };
}
