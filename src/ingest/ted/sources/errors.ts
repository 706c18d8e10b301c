/**
 * Errors of the TED sources. They all extend `TedSourceError`, so a run can tell "the source failed" (retry
 * the run later) from "one notice could not be normalized" (`TedNoticeError`, recorded and skipped).
 */

/** A TED source could not deliver its notices: an unreadable file, a bad package, a failed API call. */
export class TedSourceError extends Error {
  override readonly name: string = "TedSourceError";
}

/** A daily (or monthly) bulk package that is not a readable `.tar.gz`: corrupt, truncated, not gzip. */
export class TedPackageError extends TedSourceError {
  override readonly name: string = "TedPackageError";
}

/**
 * A TED HTTP call failed for good: a permanent status, a transient failure (429, 5xx, `timedOut: true`,
 * an empty 202 bot challenge…) on every attempt, or an answer that is not what the endpoint serves
 * (invalid JSON, no `notices`, an HTML page instead of a notice's XML).
 */
export class TedApiError extends TedSourceError {
  override readonly name: string = "TedApiError";
  readonly method: "GET" | "POST";
  readonly url: string;
  /** How many requests were made. */
  readonly attempts: number;
  /** The last failure, e.g. `HTTP 429 Too Many Requests` or `the search timed out (timedOut: true)`. */
  readonly reason: string;
  /** HTTP status of the last response; null when none arrived (timeout, connection error). */
  readonly status: number | null;
  /** False when the failure was judged permanent and not retried. */
  readonly retryable: boolean;

  constructor(
    init: {
      method: "GET" | "POST";
      url: string;
      attempts: number;
      reason: string;
      status: number | null;
      retryable: boolean;
    },
    options?: ErrorOptions,
  ) {
    const tries = `${init.attempts} attempt${init.attempts === 1 ? "" : "s"}`;
    const note = init.retryable ? "" : " (not retryable)";
    super(`${init.method} ${init.url} failed after ${tries}: ${init.reason}${note}`, options);
    this.method = init.method;
    this.url = init.url;
    this.attempts = init.attempts;
    this.reason = init.reason;
    this.status = init.status;
    this.retryable = init.retryable;
  }
}
