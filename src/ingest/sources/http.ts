import { setTimeout as delay } from "node:timers/promises";

/**
 * The one HTTP client of ingestion: feed pages (10–30 MB) and ZIP archives (up to ~2 GB) by GET, TED Search
 * API pages by JSON POST, notices and packages by GET, from public servers that are slow, rate-limited and
 * occasionally down. Every request goes through `requestWithRetry`: one attempt loop, one retry budget
 * (`retries` extra attempts, whatever failed), one backoff (`backoffDelay`, equal jitter), one `Retry-After`
 * reading (capped at `maxDelayMs`), one test of what is transient (`classifyError`), one error (`FetchError`).
 *
 * Timeouts come in two phases, because one deadline cannot fit both a 1 s header wait and a 20 min download:
 * - `timeoutMs` bounds each attempt up to the response headers (DNS, connect, TLS, server think time).
 *   When it fires the attempt is aborted and retried like any other transient failure.
 * - `bodyIdleTimeoutMs` (default `timeoutMs`) bounds each *read* of the returned body: the clock runs only
 *   while the consumer is waiting for the next chunk, so a slow consumer (a parser applying entries to the
 *   database) never trips it, while a server that stalls mid-body does. The body then errors with
 *   `BodyTimeoutError` and the connection is aborted.
 *
 * A caller reads the body inside the attempt (`consume`): a transfer that breaks off there (reset, stall,
 * a body the consumer finds cut short) fails the attempt and is retried from scratch within the same budget.
 * `fetchWithRetry` hands the streaming body out instead (a feed page is parsed while it arrives); a body
 * that breaks off later is the caller's to retry.
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

/**
 * A request failed for good: a permanent HTTP status, a transient failure on every attempt, or an answer that
 * is not what the endpoint serves (invalid JSON, an HTML page instead of a notice, a body over its cap).
 * The one error of every upstream HTTP call (feeds, archives, the TED API, notices, packages).
 */
export class FetchError extends Error {
  override readonly name = "FetchError";
  readonly method: HttpMethod;
  readonly url: string;
  /** How many requests were made. */
  readonly attempts: number;
  /** The last failure, e.g. `HTTP 404 Not Found` or `connect ECONNREFUSED 127.0.0.1:8080`. */
  readonly reason: string;
  /** HTTP status of the last attempt; null when no response arrived (timeout, connection error). */
  readonly status: number | null;
  /** False when the failure was judged permanent (a 4xx other than 408/429, a wrong answer) and not retried. */
  readonly retryable: boolean;

  constructor(
    init: {
      method?: HttpMethod;
      url: string;
      attempts: number;
      reason: string;
      status: number | null;
      retryable: boolean;
    },
    options?: ErrorOptions,
  ) {
    const method = init.method ?? "GET";
    const tries = `${init.attempts} attempt${init.attempts === 1 ? "" : "s"}`;
    const note = init.retryable ? "" : " (not retryable)";
    super(`${method} ${init.url} failed after ${tries}: ${init.reason}${note}`, options);
    this.method = method;
    this.url = init.url;
    this.attempts = init.attempts;
    this.reason = init.reason;
    this.status = init.status;
    this.retryable = init.retryable;
  }
}

export type HttpMethod = "GET" | "POST";

/**
 * Thrown by a `consume` callback to fail the attempt with its own diagnosis: `retryable` decides whether another
 * attempt is made (a body cut short, TED's `timedOut: true`) or the call fails at once (an HTML page, a
 * body over its cap). It becomes the `reason` of the `FetchError` that ends the call.
 */
export class AttemptFailed extends Error {
  override readonly name = "AttemptFailed";
  readonly retryable: boolean;
  /** Overrides the response's status in the final error (null: no response, e.g. a token that did not move). */
  readonly status: number | null | undefined;

  constructor(reason: string, init: { retryable: boolean; status?: number | null }, options?: ErrorOptions) {
    super(reason, options);
    this.retryable = init.retryable;
    this.status = init.status;
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

/** One request: what `requestWithRetry` sends on each attempt. */
export interface HttpRequest {
  method: HttpMethod;
  url: string;
  /** Request headers besides User-Agent. */
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends `request`, retrying transient failures with exponential backoff and equal jitter: HTTP 5xx, 429 and
 * 408 (honouring `Retry-After`, capped at `maxDelayMs`), an empty 202 (see `EmptyBodyError`), header
 * timeouts and connection errors (refused, reset, hang-up, DNS); then, for a 2xx, whatever `consume` makes of
 * the response: its value is returned, a transient error while it reads the body (a reset, a stall past the
 * idle timeout) or an `AttemptFailed` marked retryable fails the attempt, which is retried within the same
 * budget. Any other non-2xx status fails at once. At most `retries + 1` attempts in all.
 *
 * `consume` gets a 2xx response whose body is guarded by the idle timeout and whose `url` is the final URL
 * after redirects. Rejects with `FetchError` (naming method, URL, attempts and the last reason), with
 * `signal.reason` when the caller aborts, or with a non-transient error `consume` threw (a full disk).
 */
export async function requestWithRetry<T>(
  request: HttpRequest,
  options: HttpOptions,
  consume: (response: Response) => Promise<T>,
): Promise<T> {
  checkOptions(request.url, options);
  const signal = options.signal;
  const sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, { signal }));
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const outcome = await attemptOnce(request, options);
    let failed: Failure;
    if (outcome.ok) {
      try {
        return await consume(outcome.response);
      } catch (err) {
        await outcome.response.body?.cancel().catch(() => undefined);
        failed = consumeFailure(err, outcome.response.status, options);
      }
    } else {
      failed = outcome;
    }
    if (!failed.retryable || attempt > options.retries) {
      const { reason, status, retryable } = failed;
      throw new FetchError(
        { method: request.method, url: request.url, attempts: attempt, reason, status, retryable },
        { cause: failed.cause },
      );
    }
    const delayMs =
      failed.retryAfterMs === null
        ? backoffDelay(attempt, options)
        : Math.min(failed.retryAfterMs, options.maxDelayMs);
    options.onRetry?.({ attempt, delayMs, reason: failed.reason });
    await sleep(delayMs);
  }
}

/**
 * GETs `url` (see `requestWithRetry`) and resolves with the 2xx response, its body still to be read: guarded by
 * the idle timeout, it is the caller's to consume, and a body that breaks off later is the caller's to retry.
 */
export async function fetchWithRetry(url: string, options: HttpOptions): Promise<Response> {
  return requestWithRetry({ method: "GET", url }, options, async (response) => response);
}

/** What a caller makes of a parsed JSON answer. */
export type JsonVerdict<T> = { ok: true; value: T } | { ok: false; reason: string; retryable: boolean };

/** Refuses JSON answers bigger than this: an API page is a few MB at most, so more is not a page. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/**
 * POSTs `body` as JSON to `url` and returns `interpret(parsed answer)`'s value (see `requestWithRetry` for the
 * retries). An answer is small, so one attempt covers the whole exchange: headers, body, JSON parse and the
 * caller's check. Besides the transport failures, an attempt fails when the body is empty (TED's WAF answers
 * bots with an empty 202: retried), when the JSON breaks off before its end (a body cut short: retried), when
 * it is otherwise invalid JSON or over 64 MiB (at once), and as `interpret` decides.
 */
export async function postJsonWithRetry<T>(
  url: string,
  body: unknown,
  options: HttpOptions,
  interpret: (json: unknown) => JsonVerdict<T>,
): Promise<T> {
  const request: HttpRequest = {
    method: "POST",
    url,
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  };
  return requestWithRetry(request, options, async (response) => {
    const bytes = await readBounded(response, MAX_JSON_BYTES);
    if (bytes.length === 0) {
      // TED's WAF answers clients it takes for bots with an empty 202: a refusal, never an empty page.
      const note = response.status === 202 ? " (a bot challenge, not data)" : "";
      throw new AttemptFailed(`${statusLine(response)} with an empty body${note}`, { retryable: true });
    }
    const text = bytes.toString("utf8");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const cut = endsEarly(text, message);
      const reason = cut
        ? `the JSON response ends early (${message}): a body cut short`
        : `invalid JSON in the response (${message}); it starts with ${JSON.stringify(text.slice(0, 80))}`;
      throw new AttemptFailed(reason, { retryable: cut }, { cause: err });
    }
    const verdict = interpret(json);
    if (!verdict.ok) {
      throw new AttemptFailed(verdict.reason, { retryable: verdict.retryable });
    }
    return verdict.value;
  });
}

/**
 * Whether a JSON parse error means the text stopped before its end (a transfer cut short, worth another
 * attempt) rather than text that is not JSON at all: it began like JSON and the parser ran out of input.
 */
function endsEarly(text: string, message: string): boolean {
  const start = text.trimStart()[0];
  if (start !== "{" && start !== "[") {
    return false;
  }
  if (/end of JSON input|Unterminated/i.test(message)) {
    return true;
  }
  const at = /position (\d+)/.exec(message)?.[1];
  return at !== undefined && Number(at) >= text.trimEnd().length;
}

/**
 * The whole body, each read bounded by the idle timeout (the response is guarded by `requestWithRetry`).
 * Rejects with a non-retryable `AttemptFailed` past `maxBytes`.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<Buffer> {
  const body = response.body;
  if (body === null) {
    return Buffer.alloc(0);
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) {
        return Buffer.concat(chunks, size);
      }
      size += chunk.value.byteLength;
      if (size > maxBytes) {
        throw new AttemptFailed(`the body exceeds ${maxBytes} bytes`, { retryable: false });
      }
      chunks.push(chunk.value);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
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

interface Failure {
  retryable: boolean;
  reason: string;
  status: number | null;
  retryAfterMs: number | null;
  cause?: unknown;
}

type Outcome = { ok: true; response: Response } | ({ ok: false } & Failure);

/** Marks an abort caused by our header deadline, as opposed to the caller's signal. */
class HeadersTimeout extends Error {}

async function attemptOnce(request: HttpRequest, options: HttpOptions): Promise<Outcome> {
  const controller = new AbortController();
  const external = options.signal;
  const onExternalAbort = (): void => controller.abort(external?.reason);
  external?.addEventListener("abort", onExternalAbort, { once: true });
  const release = (): void => external?.removeEventListener("abort", onExternalAbort);

  const timer = setTimeout(() => controller.abort(new HeadersTimeout()), options.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: { ...request.headers, "user-agent": options.userAgent },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: controller.signal,
    });
  } catch (err) {
    release();
    return { ok: false, ...transportFailure(err, options) };
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
      return { ok: false, ...transportFailure(err, options) };
    }
  }
  return { ok: true, response: guarded };
}

/** A failure before or while the response arrived: our header deadline, or a transport error. */
function transportFailure(err: unknown, options: HttpOptions): Failure {
  if (options.signal?.aborted) {
    // The caller is shutting down: not a request failure, and never worth a retry.
    throw options.signal.reason;
  }
  if (errorChain(err).some((e) => e instanceof HeadersTimeout)) {
    const reason = `no response headers within ${options.timeoutMs} ms`;
    return { retryable: true, reason, status: null, retryAfterMs: null, cause: err };
  }
  const { reason, transient } = classifyError(err);
  return { retryable: transient, reason, status: null, retryAfterMs: null, cause: err };
}

/**
 * What `consume` threw: its own verdict (`AttemptFailed`), a transfer that broke off (transient: retried), or
 * anything else, rethrown as it is (a full disk is not the upstream's failure).
 */
function consumeFailure(err: unknown, status: number, options: HttpOptions): Failure {
  if (options.signal?.aborted) {
    throw options.signal.reason;
  }
  if (err instanceof AttemptFailed) {
    const failedStatus = err.status === undefined ? status : err.status;
    return {
      retryable: err.retryable,
      reason: err.message,
      status: failedStatus,
      retryAfterMs: null,
      cause: err,
    };
  }
  const { reason, transient } = classifyError(err);
  if (!transient) {
    throw err;
  }
  return {
    retryable: true,
    reason: `transfer interrupted: ${reason}`,
    status,
    retryAfterMs: null,
    cause: err,
  };
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
