import { setTimeout as delay } from "node:timers/promises";
import type { HttpOptions } from "../../sources/http.ts";
import { BodyTimeoutError, backoffDelay, classifyError, parseRetryAfter } from "../../sources/http.ts";
import { TedApiError } from "./errors.ts";

/**
 * A resilient JSON POST for the TED Search API. `fetchWithRetry` only does GET, so this mirrors its
 * semantics for a POST: the same `HttpOptions`, the same backoff (`backoffDelay`, equal jitter), the same
 * `Retry-After` handling capped at `maxDelayMs`, the same transient-error test (`classifyError`).
 *
 * A search request is idempotent and its answer small (≤ 250 notices), so one attempt covers the whole
 * exchange: headers, body, JSON parse and the caller's check of the payload. A body that breaks off, or a
 * payload the caller calls transient (TED's `timedOut: true`), is retried like a 503.
 */

/** What the caller makes of a parsed JSON answer. */
export type JsonVerdict<T> = { ok: true; value: T } | { ok: false; reason: string; retryable: boolean };

/** Refuses answers bigger than this: a search page is a few MB at most, so more is not a search page. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * POSTs `body` as JSON to `url` and returns `interpret(parsed answer)`'s value, retrying transient failures
 * with exponential backoff: HTTP 5xx, 429 and 408 (honouring `Retry-After`), a 2xx with an empty body (TED's
 * WAF answers bots with an empty 202), header timeouts, stalled or broken bodies, connection errors, and any
 * verdict of `interpret` marked `retryable`. At most `http.retries` retries.
 *
 * Rejects with `TedApiError` (naming the URL, the attempts and the last reason) once retries are exhausted,
 * at once for a permanent failure (another 4xx, invalid JSON, a non-retryable verdict), or with
 * `http.signal.reason` when the caller aborts.
 */
export async function postJsonWithRetry<T>(
  url: string,
  body: unknown,
  http: HttpOptions,
  interpret: (json: unknown) => JsonVerdict<T>,
): Promise<T> {
  checkRequest(url, http);
  const signal = http.signal;
  const sleep = http.sleep ?? ((ms: number) => delay(ms, undefined, { signal }));
  const payload = JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const outcome = await attemptOnce(url, payload, http);
    let failure: Failure;
    if (outcome.ok) {
      const verdict = interpret(outcome.json);
      if (verdict.ok) {
        return verdict.value;
      }
      failure = { ...verdict, status: outcome.status, retryAfterMs: null };
    } else {
      failure = outcome;
    }
    if (!failure.retryable || attempt > http.retries) {
      const { reason, status, retryable } = failure;
      throw new TedApiError(
        { method: "POST", url, attempts: attempt, reason, status, retryable },
        { cause: failure.cause },
      );
    }
    const delayMs =
      failure.retryAfterMs === null
        ? backoffDelay(attempt, http)
        : Math.min(failure.retryAfterMs, http.maxDelayMs);
    http.onRetry?.({ attempt, delayMs, reason: failure.reason });
    await sleep(delayMs);
  }
}

interface Failure {
  retryable: boolean;
  reason: string;
  status: number | null;
  retryAfterMs: number | null;
  cause?: unknown;
}

type Outcome = { ok: true; json: unknown; status: number } | ({ ok: false } & Failure);

/** Marks an abort caused by our header deadline, as opposed to the caller's signal. */
class HeadersTimeout extends Error {}

async function attemptOnce(url: string, payload: string, http: HttpOptions): Promise<Outcome> {
  const controller = new AbortController();
  const external = http.signal;
  const onExternalAbort = (): void => controller.abort(external?.reason);
  external?.addEventListener("abort", onExternalAbort, { once: true });
  try {
    const timer = setTimeout(() => controller.abort(new HeadersTimeout()), http.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          "user-agent": http.userAgent,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: payload,
        signal: controller.signal,
      });
    } catch (err) {
      return failed(err, http);
    } finally {
      clearTimeout(timer);
    }

    const status = response.status;
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), Date.now());
    if (!response.ok) {
      // Free the connection; an error page is of no use to us.
      await response.body?.cancel().catch(() => undefined);
      const retryable = status >= 500 || status === 429 || status === 408;
      return { ok: false, retryable, reason: statusLine(response), status, retryAfterMs };
    }

    let bytes: Buffer;
    try {
      bytes = await readBody(response, controller, http.bodyIdleTimeoutMs ?? http.timeoutMs);
    } catch (err) {
      if (err instanceof TooLarge) {
        return { ok: false, retryable: false, reason: err.message, status, retryAfterMs: null };
      }
      return failed(err, http);
    }
    if (bytes.length === 0) {
      // TED's WAF answers clients it takes for bots with an empty 202; it is a refusal, never an empty page.
      const note = status === 202 ? " (a bot challenge, not data)" : "";
      const reason = `${statusLine(response)} with an empty body${note}`;
      return { ok: false, retryable: true, reason, status, retryAfterMs };
    }
    const text = bytes.toString("utf8");
    try {
      return { ok: true, json: JSON.parse(text), status };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const reason = `invalid JSON in the response (${message}); it starts with ${JSON.stringify(text.slice(0, 80))}`;
      return { ok: false, retryable: false, reason, status, retryAfterMs: null, cause: err };
    }
  } finally {
    external?.removeEventListener("abort", onExternalAbort);
  }
}

class TooLarge extends Error {}

/** The whole body, each read bounded by `idleMs` (the clock runs only while we wait for a chunk). */
async function readBody(response: Response, controller: AbortController, idleMs: number): Promise<Buffer> {
  const body = response.body;
  if (body === null) {
    return Buffer.alloc(0);
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let stalled = false;
      const timer = setTimeout(() => {
        stalled = true;
        controller.abort(new BodyTimeoutError(response.url, idleMs));
      }, idleMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw stalled ? new BodyTimeoutError(response.url, idleMs) : err;
      } finally {
        clearTimeout(timer);
      }
      if (chunk.done) {
        return Buffer.concat(chunks, size);
      }
      size += chunk.value.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        throw new TooLarge(`the response exceeds ${MAX_RESPONSE_BYTES} bytes`);
      }
      chunks.push(chunk.value);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
}

function failed(err: unknown, http: HttpOptions): { ok: false } & Failure {
  if (http.signal?.aborted) {
    // The caller is shutting down: not a request failure, and never worth a retry.
    throw http.signal.reason;
  }
  if (chainHas(err, (e) => e instanceof HeadersTimeout)) {
    const reason = `no response headers within ${http.timeoutMs} ms`;
    return { ok: false, retryable: true, reason, status: null, retryAfterMs: null, cause: err };
  }
  const { reason, transient } = classifyError(err);
  return { ok: false, retryable: transient, reason, status: null, retryAfterMs: null, cause: err };
}

function chainHas(err: unknown, test: (e: unknown) => boolean): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (test(current)) {
      return true;
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function statusLine(response: Response): string {
  return `HTTP ${response.status} ${response.statusText}`.trimEnd();
}

function checkRequest(url: string, http: HttpOptions): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new TypeError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new TypeError(`only http(s) URLs can be requested: ${url}`);
  }
  if (http.userAgent.trim() === "") {
    throw new TypeError("HttpOptions.userAgent must not be empty");
  }
  if (!(http.timeoutMs > 0) || !Number.isInteger(http.retries) || http.retries < 0) {
    throw new RangeError("HttpOptions: timeoutMs must be > 0 and retries an integer >= 0");
  }
}
