import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { HttpOptions } from "./http.ts";
import { backoffDelay, classifyError, FetchError, fetchWithRetry } from "./http.ts";

/**
 * Streams `url` into the file at `path` (created or truncated), never holding more than a chunk in memory.
 *
 * `fetchWithRetry` retries until the headers arrive; a transfer that breaks afterwards (reset, stall past
 * the idle timeout) restarts from scratch here, with the same backoff and at most `retries` restarts,
 * since a 2 GB archive is likely to hit one hiccup. Rejects with `FetchError` once restarts are exhausted
 * (its `attempts` then counts transfers); local errors (disk full, permissions) are rethrown as they are.
 */
export async function downloadToFile(url: string, path: string, http: HttpOptions): Promise<void> {
  const sleep = http.sleep ?? ((ms: number) => delay(ms, undefined, { signal: http.signal }));
  for (let attempt = 1; ; attempt++) {
    const response = await fetchWithRetry(url, http);
    const body = response.body;
    if (body === null) {
      const reason = `HTTP ${response.status} without a body`;
      throw new FetchError({ url, attempts: attempt, reason, status: response.status, retryable: false });
    }
    try {
      await pipeline(body, createWriteStream(path));
      return;
    } catch (err) {
      http.signal?.throwIfAborted();
      const { reason, transient } = classifyError(err);
      if (!transient) {
        throw err;
      }
      if (attempt > http.retries) {
        const message = `transfer interrupted: ${reason}`;
        throw new FetchError(
          { url, attempts: attempt, reason: message, status: response.status, retryable: true },
          { cause: err },
        );
      }
      const delayMs = backoffDelay(attempt, http);
      http.onRetry?.({ attempt, delayMs, reason: `transfer interrupted: ${reason}` });
      await sleep(delayMs);
    }
  }
}
