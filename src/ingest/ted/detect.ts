import type { NormalizeResult } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { readXmlElements, XmlError } from "../xml/reader.ts";
import { normalizeEformsNotice } from "./eforms.ts";
import { TedNoticeError } from "./errors.ts";
import { isEformsRoot, isR209Root } from "./namespaces.ts";
import { normalizeR209Notice } from "./r209.ts";

export { TedNoticeError } from "./errors.ts";

/**
 * Normalizes one TED notice of either format, chosen by the root element's namespace and local name (never
 * its prefix): eForms `ContractNotice` / `ContractAwardNotice` / `PriorInformationNotice`, or R2.0.9
 * `TED_EXPORT`. Daily packages from 2023 mix both formats, so this is the entry point for any notice.
 *
 * Throws `TedNoticeError` for any other root, and whatever the format's normalizer throws (also
 * `TedNoticeError`: an unsupported R2.0.9 form, a notice without key or date).
 */
export function normalizeTedNotice(root: XmlElement): NormalizeResult {
  if (isEformsRoot(root.ns, root.name)) {
    return normalizeEformsNotice(root);
  }
  if (isR209Root(root.ns, root.name)) {
    return normalizeR209Notice(root);
  }
  throw new TedNoticeError(`not a TED notice: ${describeRoot(root.ns, root.name)}`);
}

/**
 * Reads one notice document (a few KB to about 1 MB) from a byte or string stream into a single element
 * tree, with the streaming reader's protections (no DOCTYPE, no unknown entities, UTF-8 only).
 *
 * The root tag is checked as soon as it is read, so an HTML error page or a WAF challenge body fails fast
 * without being parsed to the end. Throws `TedNoticeError` for a root that is not a TED notice, for XML
 * that is malformed or truncated (the `XmlError` is its `cause`), and for an empty document.
 */
export async function readTedNotice(input: AsyncIterable<string | Uint8Array>): Promise<XmlElement> {
  let root: XmlElement | null = null;
  try {
    // Selecting depth 0 materializes the whole document as one element once its end tag is read.
    for await (const item of readXmlElements(input, { select: (_ns, _name, depth) => depth === 0 })) {
      if (item.kind === "root") {
        if (!isEformsRoot(item.ns, item.name) && !isR209Root(item.ns, item.name)) {
          throw new TedNoticeError(`not a TED notice: ${describeRoot(item.ns, item.name)}`);
        }
        continue;
      }
      root = item.element;
    }
  } catch (err) {
    if (err instanceof XmlError) {
      throw new TedNoticeError(`not a well-formed TED notice: ${err.message}`, { cause: err });
    }
    throw err;
  }
  if (root === null) {
    throw new TedNoticeError("empty document: no root element");
  }
  return root;
}

function describeRoot(ns: string, name: string): string {
  return ns === "" ? `root element is <${name}>` : `root element is <${name}> in namespace "${ns}"`;
}
