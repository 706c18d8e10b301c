import { readFile } from "node:fs/promises";

const FETCH_TIMEOUT_MS = 30_000;

/** Text of a local file or an http(s) URL. */
export async function readTextSource(source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) {
      throw new Error(`GET ${source} answered HTTP ${response.status}`);
    }
    return response.text();
  }
  return readFile(source, "utf8");
}
