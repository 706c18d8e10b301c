/**
 * Errors of the TED sources. They all extend `TedSourceError`, so a run can tell "the source failed" (retry
 * the run later) from "one notice could not be normalized" (`TedNoticeError`, recorded and skipped). A failed
 * HTTP call (the Search API, a notice, a package download) is the ingestion-wide `FetchError`
 * (`ingest/sources/http.ts`).
 */

/** A TED source could not deliver its notices: an unreadable file, a bad package, too many failed downloads. */
export class TedSourceError extends Error {
  override readonly name: string = "TedSourceError";
}

/** A daily (or monthly) bulk package that is not a readable `.tar.gz`: corrupt, truncated, not gzip. */
export class TedPackageError extends TedSourceError {
  override readonly name: string = "TedPackageError";
}
