import { createHash, type Hash } from "node:crypto";
import type { XmlElement } from "./element.ts";

/**
 * SHA-256 of an element tree in a canonical form (namespace URIs, local names, attributes sorted by name,
 * text, children in document order), skipping the elements `skip` selects. Prefixes and formatting of the
 * source do not matter; content does. Ingestion hashes each entry without its version timestamp, so an
 * identical re-publication has the same hash.
 */
export function hashElement(element: XmlElement, skip: (el: XmlElement, depth: number) => boolean): string {
  const hash = createHash("sha256");
  feed(hash, element, 0, skip);
  return hash.digest("hex");
}

function feed(
  hash: Hash,
  el: XmlElement,
  depth: number,
  skip: (el: XmlElement, depth: number) => boolean,
): void {
  hash.update(`<${el.ns}|${el.name}`);
  for (const name of Object.keys(el.attrs).sort()) {
    hash.update(` ${name}=${JSON.stringify(el.attrs[name])}`);
  }
  hash.update(`>${JSON.stringify(el.text.trim())}`);
  for (const child of el.children) {
    if (!skip(child, depth + 1)) {
      feed(hash, child, depth + 1, skip);
    }
  }
  hash.update("</>");
}
