import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import type { HttpOptions } from "./http.ts";
import { requestWithRetry } from "./http.ts";

/**
 * Streams `url` into the file at `path` (created or truncated), never holding more than a chunk in memory.
 *
 * The download is `requestWithRetry`'s attempt: a transfer that breaks off (reset, stall past the idle timeout)
 * restarts from scratch within the same retry budget, since a 2 GB archive is likely to hit one hiccup.
 * Rejects with `FetchError` once the budget is spent; local errors (disk full, permissions) are rethrown as
 * they are.
 */
export async function downloadToFile(url: string, path: string, http: HttpOptions): Promise<void> {
  await requestWithRetry({ method: "GET", url }, http, async (response) => {
    const body = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    await pipeline(body, createWriteStream(path));
  });
}
