import { setTimeout as delay } from "node:timers/promises";

/**
 * Resilient HTTP GET for ingestion: feed pages (10–30 MB) and ZIP archives (up to ~2 GB) from public
 * servers that are slow, rate-limited and occasionally down.
 *
 * Timeouts come in two phases, because one deadline cannot fit both a 1 s header wait and a 20 min download:
 * - `timeoutMs` bounds each attempt up to the response headers (DNS, connect, TLS, server think time).
 *   When it fires the attempt is aborted and retried like any other transient failure.
 * - `bodyIdleTimeoutMs` (default `timeoutMs`) bounds each *read* of the returned body: the clock runs only
 *   while the consumer is waiting for the next chunk, so a slow consumer (a parser applying entries to the
 *   database) never trips it, while a server that stalls mid-body does. The body then errors with
 *   `BodyTimeoutError` and the connection is aborted. A body cannot be retried transparently once the caller
 *   has consumed part of it; callers that can restart from scratch (a download to a file) do so themselves.
 *
 * Both phases share one AbortController per attempt, and `signal` (the caller's shutdown) aborts either.
 */

/** What `onRetry` is told before each wait. */
export interface RetryInfo {
  /** 1-based number of the attempt that just failed; the next one is `attempt + 1`. */
  attempt: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
  /** Why the attempt failed, e.g. `HTTP 503 Service Unavailable`. */
  reason: string;
}

export interface HttpOptions {
  /** Sent as `User-Agent`: public-data servers block or throttle anonymous clients. Must not be empty. */
  userAgent: string;
  /** Per-attempt deadline up to the response headers. */
  timeoutMs: number;
  /** Longest wait for one body chunk while the consumer is reading; defaults to `timeoutMs`. */
  bodyIdleTimeoutMs?: number;
  /** Extra attempts after the first one (so `retries: 3` means at most 4 requests). */
  retries: number;
  /** Backoff before the first retry; doubles on each further retry. */
  baseDelayMs: number;
  /** Cap for any wait, including a server's `Retry-After`. */
  maxDelayMs: number;
  /** Aborts the request, its body and any backoff wait; the abort reason is rethrown, never retried. */
  signal?: AbortSignal;
  /** Injectable for tests; defaults to a timer that honours `signal`. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1); injectable for tests. */
  random?: () => number;
  /** Called before each backoff wait (for logging). */
  onRetry?: (info: RetryInfo) => void;
}

/** A request failed for good: a permanent HTTP status, or a transient failure on every attempt. */
export class FetchError extends Error {
  override readonly name = "FetchError";
  readonly url: string;
  /** How many requests were made. */
  readonly attempts: number;
  /** The last failure, e.g. `HTTP 404 Not Found` or `connect ECONNREFUSED 127.0.0.1:8080`. */
  readonly reason: string;
  /** HTTP status of the last attempt; null when no response arrived (timeout, connection error). */
  readonly status: number | null;
  /** False when the failure was judged permanent (a 4xx other than 408/429) and not retried. */
  readonly retryable: boolean;

  constructor(
    init: { url: string; attempts: number; reason: string; status: number | null; retryable: boolean },
    options?: ErrorOptions,
  ) {
    const tries = `${init.attempts} attempt${init.attempts === 1 ? "" : "s"}`;
    const note = init.retryable ? "" : " (not retryable)";
    super(`GET ${init.url} failed after ${tries}: ${init.reason}${note}`, options);
    this.url = init.url;
    this.attempts = init.attempts;
    this.reason = init.reason;
    this.status = init.status;
    this.retryable = init.retryable;
  }
}

/** The server stopped sending body bytes for longer than the idle timeout while we were reading. */
export class BodyTimeoutError extends Error {
  override readonly name = "BodyTimeoutError";
  readonly url: string;
  readonly idleMs: number;

  constructor(url: string, idleMs: number) {
    super(`GET ${url}: no body data for ${idleMs} ms (stalled transfer)`);
    this.url = url;
    this.idleMs = idleMs;
  }
}

/** A success status without a single body byte: some upstreams answer bots with an empty 202, not data. */
export class EmptyBodyError extends Error {
  override readonly name = "EmptyBodyError";
  readonly url: string;
  readonly status: number;

  constructor(response: Response) {
    super(
      `GET ${response.url}: ${statusLine(response)} with an empty body ` +
        "(upstreams send this as a bot challenge; it is not data)",
    );
    this.url = response.url;
    this.status = response.status;
  }
}

/**
 * GETs `url`, retrying transient failures with exponential backoff and equal jitter: HTTP 5xx, 429 and 408
 * (honouring `Retry-After`, capped at `maxDelayMs`), an empty 202 (see `EmptyBodyError`), header timeouts
 * and connection errors (refused, reset, hang-up, DNS). Any other non-2xx status fails at once.
 *
 * Resolves with a 2xx response whose body is guarded by the idle timeout (see the module comment) and whose
 * `url` is the final URL after redirects, which is the base for relative links inside the document.
 * Rejects with `FetchError`, or with `signal.reason` when the caller aborts.
 */
export async function fetchWithRetry(url: string, options: HttpOptions): Promise<Response> {
  checkOptions(url, options);
  const signal = options.signal;
  const sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, { signal }));
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const outcome = await attemptOnce(url, options);
    if (outcome.ok) {
      return outcome.response;
    }
    if (!outcome.retryable || attempt > options.retries) {
      const { reason, status, retryable } = outcome;
      throw new FetchError({ url, attempts: attempt, reason, status, retryable }, { cause: outcome.cause });
    }
    const delayMs =
      outcome.retryAfterMs === null
        ? backoffDelay(attempt, options)
        : Math.min(outcome.retryAfterMs, options.maxDelayMs);
    options.onRetry?.({ attempt, delayMs, reason: outcome.reason });
    await sleep(delayMs);
  }
}

/**
 * The wait before retry number `retry` (1-based): equal jitter over an exponential ceiling,
 * `c/2 + random·c/2` with `c = min(maxDelayMs, baseDelayMs·2^(retry−1))`. Equal rather than full jitter so
 * that a struggling upstream always gets at least half the backoff (full jitter can retry after ~0 ms),
 * while parallel workers still spread out.
 */
export function backoffDelay(
  retry: number,
  options: Pick<HttpOptions, "baseDelayMs" | "maxDelayMs" | "random">,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const random = options.random ?? Math.random;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * `Retry-After` in milliseconds: either delay-seconds or an HTTP-date (relative to `nowMs`, never negative).
 * Null when absent or unreadable, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) {
    return null;
  }
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    return Number(trimmed) * 1000;
  }
  // HTTP-dates start with a day name; this keeps Date.parse's leniency from reading "1.5" as a date.
  const at = /^[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * Resolves with a response that still yields every byte, or rejects with `EmptyBodyError` when the body ends
 * before its first byte. It peeks one chunk, so a chunked (length-less) empty body is caught too.
 */
export async function assertHasBody(response: Response): Promise<Response> {
  const source = response.body;
  if (source === null) {
    throw new EmptyBodyError(response);
  }
  const reader = source.getReader();
  let first: Uint8Array | null = null;
  while (first === null) {
    const chunk = await reader.read();
    if (chunk.done) {
      throw new EmptyBodyError(response);
    }
    if (chunk.value.byteLength > 0) {
      first = chunk.value;
    }
  }
  let pending: Uint8Array | null = first;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(out) {
        if (pending !== null) {
          out.enqueue(pending);
          pending = null;
          return;
        }
        const chunk = await reader.read();
        if (chunk.done) {
          out.close();
        } else {
          out.enqueue(chunk.value);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return rebuild(response, body);
}

/**
 * Why a request or a body read failed, and whether trying again may help. Transient: our timeouts, refused
 * or reset connections, hang-ups, DNS failures and unreachable networks, found anywhere in the `cause`
 * chain (undici wraps them in `TypeError: fetch failed`).
 */
export function classifyError(err: unknown): { reason: string; transient: boolean } {
  const chain = errorChain(err);
  const transient = chain.some(
    (e) =>
      e instanceof BodyTimeoutError ||
      TRANSIENT_CODES.has(errorCode(e) ?? "") ||
      (e instanceof Error && TRANSIENT_MESSAGE.test(e.message)),
  );
  // The innermost message is the informative one ("connect ECONNREFUSED …" rather than "fetch failed").
  let reason = String(err);
  for (const e of chain) {
    if (e instanceof Error && e.message !== "") {
      const code = errorCode(e);
      reason = code === null || e.message.includes(code) ? e.message : `${e.message} (${code})`;
    }
  }
  return { reason, transient };
}

const TRANSIENT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
const TRANSIENT_MESSAGE = /socket hang up|other side closed|^terminated$/i;

type Outcome =
  | { ok: true; response: Response }
  | {
      ok: false;
      retryable: boolean;
      reason: string;
      status: number | null;
      retryAfterMs: number | null;
      cause?: unknown;
    };

/** Marks an abort caused by our header deadline, as opposed to the caller's signal. */
class HeadersTimeout extends Error {}

async function attemptOnce(url: string, options: HttpOptions): Promise<Outcome> {
  const controller = new AbortController();
  const external = options.signal;
  const onExternalAbort = (): void => controller.abort(external?.reason);
  external?.addEventListener("abort", onExternalAbort, { once: true });
  const release = (): void => external?.removeEventListener("abort", onExternalAbort);

  const timer = setTimeout(() => controller.abort(new HeadersTimeout()), options.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { "user-agent": options.userAgent },
      signal: controller.signal,
    });
  } catch (err) {
    release();
    return failure(err, options);
  } finally {
    clearTimeout(timer);
  }

  if (!response.ok) {
    release();
    // Free the connection; the error body is of no use to us.
    await response.body?.cancel().catch(() => undefined);
    const status = response.status;
    const retryable = status >= 500 || status === 429 || status === 408;
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"), Date.now());
    return { ok: false, retryable, reason: statusLine(response), status, retryAfterMs: retryAfter };
  }

  const idleMs = options.bodyIdleTimeoutMs ?? options.timeoutMs;
  let guarded = watchBody(response, controller, idleMs, release);
  if (response.status === 202) {
    try {
      guarded = await assertHasBody(guarded);
    } catch (err) {
      if (err instanceof EmptyBodyError) {
        const retryAfter = parseRetryAfter(response.headers.get("retry-after"), Date.now());
        const reason = `${statusLine(response)} with an empty body (a bot challenge, not data)`;
        return { ok: false, retryable: true, reason, status: 202, retryAfterMs: retryAfter, cause: err };
      }
      return failure(err, options);
    }
  }
  return { ok: true, response: guarded };
}

function failure(err: unknown, options: HttpOptions): Outcome {
  if (options.signal?.aborted) {
    // The caller is shutting down: not a fetch failure, and never worth a retry.
    throw options.signal.reason;
  }
  if (errorChain(err).some((e) => e instanceof HeadersTimeout)) {
    const reason = `no response headers within ${options.timeoutMs} ms`;
    return { ok: false, retryable: true, reason, status: null, retryAfterMs: null, cause: err };
  }
  const { reason, transient } = classifyError(err);
  return { ok: false, retryable: transient, reason, status: null, retryAfterMs: null, cause: err };
}

/**
 * Wraps the body so each pending read has `idleMs` to deliver a chunk. The timer runs only between a read
 * request and its chunk (`highWaterMark: 0` means we never read ahead), so consumer think time is free.
 */
function watchBody(
  response: Response,
  controller: AbortController,
  idleMs: number,
  release: () => void,
): Response {
  const source = response.body;
  if (source === null) {
    release();
    return response;
  }
  const url = response.url;
  const reader = source.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const settle = (): void => {
    if (!settled) {
      settled = true;
      clearTimeout(timer);
      release();
    }
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(out) {
        let stalled = false;
        timer = setTimeout(() => {
          stalled = true;
          controller.abort(new BodyTimeoutError(url, idleMs));
        }, idleMs);
        try {
          const chunk = await reader.read();
          clearTimeout(timer);
          if (chunk.done) {
            settle();
            out.close();
          } else {
            out.enqueue(chunk.value);
          }
        } catch (err) {
          settle();
          throw stalled ? new BodyTimeoutError(url, idleMs) : err;
        }
      },
      async cancel(reason) {
        settle();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return rebuild(response, body);
}

/** A copy of `original` with another body. */
function rebuild(original: Response, body: ReadableStream<Uint8Array>): Response {
  const copy = new Response(body, {
    status: original.status,
    statusText: original.statusText,
    headers: original.headers,
  });
  // A constructed Response has an empty url; callers resolve relative links against the fetched page's URL.
  Object.defineProperty(copy, "url", { value: original.url });
  Object.defineProperty(copy, "redirected", { value: original.redirected });
  return copy;
}

function statusLine(response: Response): string {
  return `HTTP ${response.status} ${response.statusText}`.trimEnd();
}

function checkOptions(url: string, options: HttpOptions): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new TypeError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new TypeError(`only http(s) URLs can be fetched: ${url}`);
  }
  if (options.userAgent.trim() === "") {
    throw new TypeError("HttpOptions.userAgent must not be empty");
  }
  if (!(options.timeoutMs > 0) || !Number.isInteger(options.retries) || options.retries < 0) {
    throw new RangeError("HttpOptions: timeoutMs must be > 0 and retries an integer >= 0");
  }
  if (!(options.baseDelayMs >= 0) || !(options.maxDelayMs >= 0)) {
    throw new RangeError("HttpOptions: baseDelayMs and maxDelayMs must be >= 0");
  }
}

/** The error, its `cause` chain and any `AggregateError` members (happy-eyeballs connects fail with one). */
function errorChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (e === undefined || e === null) {
      continue;
    }
    out.push(e);
    if (e instanceof AggregateError) {
      queue.push(...e.errors);
    }
    if (e instanceof Error) {
      queue.push(e.cause);
    }
  }
  return out;
}

function errorCode(err: unknown): string | null {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") {
    return err.code;
  }
  return null;
}
