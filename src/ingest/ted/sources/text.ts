/** Text helpers shared by the TED sources. */

/**
 * The largest notice any TED source reads into memory (API download, package entry, file): real notices are a
 * few KB to about 1 MB, so far more is not a notice, and reading it whole would cost several times its size.
 */
export const MAX_NOTICE_BYTES = 32 * 1024 * 1024;

/**
 * Decodes a notice's bytes as UTF-8 (the only encoding TED publishes and the XML reader accepts), dropping
 * a byte-order mark. Null when the bytes are not valid UTF-8: replacing them would silently alter the text
 * that is hashed and stored, so the caller decides what a damaged notice means.
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** True for text that opens like an HTML page (an error page or a WAF challenge), not an XML notice. */
export function looksLikeHtml(text: string): boolean {
  return /^\s*(<\?xml[^>]*\?>\s*)?<(!doctype\s+html|html[\s>])/i.test(text);
}
