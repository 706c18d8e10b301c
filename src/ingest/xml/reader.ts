import { TextDecoder } from "node:util";
import type { SaxesTagNS } from "saxes";
import { SaxesParser } from "saxes";
import type { XmlElement } from "./element.ts";

/**
 * Streaming XML reader: turns a byte or string stream into the few subtrees a caller asks for (one ATOM
 * entry, one TED notice), so memory stays proportional to one record however large the document is
 * (PLACSP pages are 10–30 MB, TED daily packages more). Everything outside the selected subtrees is
 * parsed and dropped.
 *
 * Security: feeds come from the network, so any DOCTYPE is rejected (no DTD, no entity declarations, no
 * billion-laughs, no external entities), and only the five predefined XML entities plus character references
 * are accepted; saxes reports any other entity reference as an error, which we turn into an `XmlError`.
 * Memory stays bounded whatever the input (`XmlLimits`): saxes buffers a text node, a comment or a tag until
 * its end, and a selected record is held whole, so a 300 MB text node, a record of millions of elements or
 * 100,000 nested elements are refused with an `XmlError` once past a limit, instead of being held.
 */

export class XmlError extends Error {
  override readonly name = "XmlError";
  /**
   * The input ended while elements were still open: a document cut short (a transfer that stopped early),
   * which reading it again may cure, unlike a malformed one.
   */
  readonly truncated: boolean;

  constructor(message: string, options?: ErrorOptions & { truncated?: boolean }) {
    super(message, options);
    this.truncated = options?.truncated ?? false;
  }
}

export interface XmlReadOptions {
  /**
   * Decides which elements are materialized as records. Called for every start tag that is not already
   * inside a selected element, with its namespace URI, local name and depth (the root element is depth 0).
   */
  select: (ns: string, name: string, depth: number) => boolean;
  /** Overrides of `DEFAULT_XML_LIMITS` (tests use small ones). */
  limits?: Partial<XmlLimits>;
}

/** What the reader refuses to hold: past any of these the input is not a feed page or a notice. */
export interface XmlLimits {
  /** Deepest element nesting (the root is depth 1). Real PLACSP and TED documents nest about 12 deep. */
  maxDepth: number;
  /** Longest record's raw text, in characters. A PLACSP entry is ~60 KB, a large TED notice a few MB. */
  maxRecordChars: number;
  /** Most elements in one record. A 55 KB TED notice has ~700. */
  maxRecordElements: number;
  /** Longest stretch of input without any markup event (a text node, a comment, one tag), in characters. */
  maxTextRun: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 256,
  maxRecordChars: 32 * 1024 * 1024,
  maxRecordElements: 250_000,
  maxTextRun: 16 * 1024 * 1024,
};

export type XmlReadItem =
  /** The root start tag, always the first item: lets a caller reject a wrong document before reading on. */
  | { kind: "root"; ns: string; name: string; attrs: Record<string, string> }
  /**
   * A completed selected element with all its descendants, and its raw text exactly as it appears in the
   * input (from `<` of the start tag to `>` of the end tag), whatever the chunking of the input.
   */
  | { kind: "element"; element: XmlElement; depth: number; raw: string };

/**
 * Reads `input` chunk by chunk and yields the root tag, then each selected element as soon as its end tag
 * has been read. Byte chunks are decoded as UTF-8 across chunk boundaries; string chunks are taken as
 * already decoded (do not mix the two in one stream).
 *
 * Throws `XmlError` on malformed XML, a DOCTYPE, an unknown entity, invalid UTF-8, a declared encoding
 * other than UTF-8 (for byte input), and on a document that ends early (truncated): the records completed
 * before the cut have been yielded by then, the partial one never is.
 */
export async function* readXmlElements(
  input: AsyncIterable<string | Uint8Array>,
  options: XmlReadOptions,
): AsyncGenerator<XmlReadItem, void, undefined> {
  const queue: XmlReadItem[] = [];
  const limits: XmlLimits = { ...DEFAULT_XML_LIMITS, ...options.limits };
  const parser = new SaxesParser({ xmlns: true, position: true });
  // Where the last markup event happened, and how many elements the open record has, for the limits.
  let lastMarkupAt = 0;
  let recordElements = 0;
  const markup = (): void => {
    lastMarkupAt = parser.position;
  };
  // Open materialized elements, innermost last; empty while outside any selected record.
  const stack: XmlElement[] = [];
  let depth = 0;
  let sawRoot = false;
  let sawBytes = false;
  // Registering saxes' doctype or xmldecl handlers makes the parser about 3x slower (measured on 44 MB of
  // PLACSP pages), so the prolog is checked by the `prolog` guard below instead.
  const prolog = createPrologGuard();
  const raw = createRawCapture();

  parser.on("error", (err) => {
    throw new XmlError(err.message, { cause: err });
  });
  parser.on("opentagstart", (tag) => {
    markup();
    if (stack.length === 0) {
      // saxes reports the start tag once it has read the character after the name (space, `>` or `/`):
      // the tag's `<` is that character, the name and one more back.
      raw.candidate(parser.position - tag.name.length - 2);
    }
  });
  parser.on("opentag", (tag: SaxesTagNS) => {
    markup();
    if (depth >= limits.maxDepth) {
      throw new XmlError(
        `elements nested deeper than ${limits.maxDepth} levels: not a feed page or a notice`,
      );
    }
    if (depth === 0) {
      sawRoot = true;
      queue.push({ kind: "root", ns: tag.uri, name: tag.local, attrs: attributesOf(tag) });
    }
    const parent = stack.at(-1);
    if (parent || options.select(tag.uri, tag.local, depth)) {
      const element: XmlElement = {
        ns: tag.uri,
        name: tag.local,
        attrs: attributesOf(tag),
        children: [],
        text: "",
      };
      if (!parent) {
        raw.begin();
        recordElements = 0;
      }
      recordElements += 1;
      if (recordElements > limits.maxRecordElements) {
        throw new XmlError(
          `a <${stack[0]?.name ?? tag.local}> record has more than ${limits.maxRecordElements} elements`,
        );
      }
      parent?.children.push(element);
      stack.push(element);
    }
    depth += 1;
  });
  parser.on("closetag", () => {
    markup();
    depth -= 1;
    const element = stack.pop();
    if (element && stack.length === 0) {
      queue.push({ kind: "element", element, depth, raw: raw.end(parser.position) });
    }
  });
  const appendText = (data: string): void => {
    markup();
    const top = stack.at(-1);
    if (top) {
      top.text += data;
    }
  };
  parser.on("text", appendText);
  parser.on("cdata", appendText);

  // Checked after each chunk, so a limit is passed by at most one chunk before the read stops.
  const overLimit = (): XmlError | null => {
    const written = raw.written();
    if (written - lastMarkupAt > limits.maxTextRun) {
      return new XmlError(
        `more than ${limits.maxTextRun} characters without markup (one text node, comment or tag): not a feed page or a notice`,
      );
    }
    const since = raw.recordStart();
    if (since !== null && written - since > limits.maxRecordChars) {
      return new XmlError(
        `a <${stack[0]?.name ?? "?"}> record is longer than ${limits.maxRecordChars} characters`,
      );
    }
    return null;
  };

  const decoder = new TextDecoder("utf-8", { fatal: true });
  for await (const chunk of input) {
    let data: string;
    if (typeof chunk === "string") {
      data = chunk;
    } else {
      sawBytes = true;
      data = decode(decoder, chunk, true);
    }
    const error = prolog.check(data, sawBytes) ?? feed(parser, data, raw) ?? overLimit();
    // Items completed before an error are still handed out: a caller may prefer its own diagnosis (e.g.
    // "root element is <html>") to a later well-formedness error.
    yield* queue.splice(0);
    if (error) {
      throw error;
    }
  }
  const rest = decode(decoder, new Uint8Array(0), false);
  let error = prolog.check(rest, sawBytes) ?? feed(parser, rest, raw);
  if (!error) {
    try {
      parser.close();
    } catch (err) {
      error = asXmlError(err);
    }
  }
  yield* queue.splice(0);
  if (error) {
    throw new XmlError(`truncated or malformed document: ${error.message}`, {
      cause: error,
      truncated: depth > 0 || !sawRoot,
    });
  }
}

/**
 * Rejects a DOCTYPE (no DTDs, no entity declarations: no billion laughs) and a declared encoding other than
 * UTF-8 for byte input. Both can only occur in the prolog, before the root element, so only text up to the
 * first element start is scanned; a marker split across two chunks is caught by keeping a short tail.
 */
function createPrologGuard() {
  let inProlog = true;
  // The XML declaration must open the document, so its first 4 KiB always hold it whole.
  let head = "";
  let tail = "";
  let encodingChecked = false;
  return {
    check(data: string, sawBytes: boolean): XmlError | null {
      if (!inProlog) {
        return null;
      }
      const text = tail + data;
      if (/<!DOCTYPE/i.test(text)) {
        return new XmlError("DOCTYPE declarations are not allowed (no DTDs or entity declarations)");
      }
      if (!encodingChecked) {
        head = (head + data).slice(0, 4096);
        if (/\?>/.test(head) || head.length >= 4096) {
          encodingChecked = true;
          const declared = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
          const encoding = declared?.toLowerCase().replace(/[-_]/g, "");
          if (sawBytes && encoding !== undefined && encoding !== "utf8") {
            return new XmlError(`unsupported encoding "${declared}": only UTF-8 is read`);
          }
        }
      }
      // The prolog ends at the first element start (not a declaration, processing instruction or comment).
      if (/<[^!?]/.test(text)) {
        inProlog = false;
      }
      tail = text.slice(-16);
      return null;
    },
  };
}

/**
 * Keeps the raw text of the record being read. Positions are saxes' `position`, a plain index into the
 * concatenation of every string written to the parser, so slicing the written chunks by them reproduces the
 * input exactly, whatever the chunk boundaries (a test reads the same page in 7-byte and 64 KiB chunks).
 */
function createRawCapture() {
  let chunkStart = 0; // stream position of the current chunk's first character
  let current = "";
  let previousTail = ""; // the end of the previous chunk, for a start tag split across two chunks
  let candidateStart = 0;
  let recording = false;
  let capturedUpTo = 0; // stream position up to which the record's text is in `captured`
  let captured = "";
  return {
    /** Called before each chunk is written to the parser. */
    chunk(data: string) {
      previousTail = (previousTail + current).slice(-512);
      chunkStart += current.length;
      current = data;
    },
    /** Called after a chunk has been written: a record still open keeps the rest of the chunk. */
    consumed() {
      if (recording) {
        captured += current.slice(capturedUpTo - chunkStart);
        capturedUpTo = chunkStart + current.length;
      }
    },
    candidate(position: number) {
      candidateStart = position;
    },
    /** Characters written so far. */
    written(): number {
      return chunkStart + current.length;
    },
    /** Stream position where the open record starts; null outside a record. */
    recordStart(): number | null {
      return recording ? candidateStart : null;
    },
    begin() {
      recording = true;
      if (candidateStart < chunkStart) {
        captured = previousTail.slice(previousTail.length - (chunkStart - candidateStart));
        capturedUpTo = chunkStart;
      } else {
        captured = "";
        capturedUpTo = candidateStart;
      }
    },
    end(position: number): string {
      const text = captured + current.slice(capturedUpTo - chunkStart, position - chunkStart);
      recording = false;
      captured = "";
      return text;
    },
  };
}

/** Writes one chunk; returns the error instead of throwing so queued items can be yielded first. */
function feed(
  parser: SaxesParser<{ xmlns: true; position: true }>,
  data: string,
  raw: ReturnType<typeof createRawCapture>,
): XmlError | null {
  if (data === "") {
    return null;
  }
  try {
    raw.chunk(data);
    parser.write(data);
    raw.consumed();
    return null;
  } catch (err) {
    return asXmlError(err);
  }
}

function decode(decoder: TextDecoder, bytes: Uint8Array, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch (err) {
    throw new XmlError(stream ? "invalid UTF-8 in input" : "input ends inside a UTF-8 sequence", {
      cause: err,
    });
  }
}

function asXmlError(err: unknown): XmlError {
  if (err instanceof XmlError) {
    return err;
  }
  const message = err instanceof Error ? err.message : String(err);
  return new XmlError(message, { cause: err });
}

function attributesOf(tag: SaxesTagNS): Record<string, string> {
  // No prototype: attribute names such as "constructor" or "__proto__" must be plain keys.
  const attrs = Object.create(null) as Record<string, string>;
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.prefix === "xmlns" || attribute.name === "xmlns") {
      continue;
    }
    // Unprefixed attributes take precedence over a prefixed one with the same local name.
    if (attribute.prefix === "" || attrs[attribute.local] === undefined) {
      attrs[attribute.local] = attribute.value;
    }
  }
  return attrs;
}
