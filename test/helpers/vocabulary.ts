import { ingestPlacsp } from "../../src/ingest/placsp/ingest-placsp.ts";
import type { IngestDeps } from "../../src/ingest/run-context.ts";
import type { HttpOptions } from "../../src/ingest/sources/http.ts";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import { SHARED_DIR } from "./engines.ts";

/** Every shared fixture: the PLACSP ATOM pages and the TED notices, read in place. */
export const FIXTURE_DIRS = { placsp: `${SHARED_DIR}fixtures/placsp`, ted: `${SHARED_DIR}fixtures/ted` };

/** Directories and files are read from disk: the HTTP options are never used, but every source takes them. */
export const LOCAL_HTTP: HttpOptions = {
  userAgent: "procurement-intel-test",
  timeoutMs: 5_000,
  retries: 1,
  baseDelayMs: 1,
  maxDelayMs: 5,
};

interface Ingesters {
  ingestPlacsp: (deps: IngestDeps, options: never) => Promise<unknown>;
  ingestTed: (deps: IngestDeps, options: never) => Promise<unknown>;
}

/**
 * One ingest run over the PLACSP fixture directory, then one over the TED one, with this tree's ingestion or
 * with the given modules (the migration test passes those of an older tree; their options have the same shape).
 */
export async function ingestFixtureDirectories(
  deps: IngestDeps,
  ingesters: Ingesters = { ingestPlacsp, ingestTed } as unknown as Ingesters,
): Promise<void> {
  await ingesters.ingestPlacsp(deps, {
    source: FIXTURE_DIRS.placsp,
    feed: null,
    since: null,
    maxPages: null,
    batchSize: 500,
    http: LOCAL_HTTP,
  } as never);
  await ingesters.ingestTed(deps, {
    source: FIXTURE_DIRS.ted,
    since: null,
    maxNotices: null,
    batchSize: 250,
    http: LOCAL_HTTP,
    query: { apiQuery: null, cpvPrefixes: [], countries: [] },
    lookbackDays: 30,
    noticeIntervalMs: 0,
  } as never);
}
