import { createHash } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { afterIngestRun } from "../../analytics/after-ingest.ts";
import { advanceCheckpoint, getCheckpoint } from "../../db/queries/ingest-runs.ts";
import { timeZoneOffsetMinutes } from "../../lib/dates.ts";
import type { EntryFailure, IngestVersion } from "../apply-batch.ts";
import { type IngestDeps, IngestRun } from "../run-context.ts";
import type { HttpOptions } from "../sources/http.ts";
import { normalizeTedNotice, readTedNotice } from "./detect.ts";
import { normalizePublicationNumber } from "./publication-number.ts";
import { TedSourceError } from "./sources/errors.ts";
import {
  classifyTedSource,
  readTedFiles,
  readTedPackage,
  type TedNoticeFile,
  type TedNoticeSkip,
  type TedSourceKind,
} from "./sources/packages.ts";
import {
  buildTedExpertQuery,
  fetchTedNoticeXml,
  searchTedNotices,
  TED_SEARCH_MAX_LIMIT,
  type TedSearchHit,
} from "./sources/search-api.ts";

/** What the Search API is asked for (configuration: `TED_QUERY`, `TED_CPV_PREFIXES`, `TED_BUYER_COUNTRIES`). */
export interface TedQueryConfig {
  /** A full expert query replacing the built one; the run's `publication-date>=` condition is still added. */
  apiQuery: string | null;
  /** CPV prefixes (2–8 digits); empty = every CPV. */
  cpvPrefixes: string[];
  /** Buyer countries, ISO alpha-3; empty = every country. */
  countries: string[];
}

export interface TedIngestOptions {
  /** The Search API base URL, a package URL, or a local `.tar.gz`, notice file or directory of notices. */
  source: string;
  /**
   * `YYYY-MM-DD`. API: the earliest publication date asked for (only ever later than the checkpoint's).
   * Packages and files: notices published before it are skipped.
   */
  since: string | null;
  /** At most this many notices (search hits, or notices read from a package or directory). */
  maxNotices: number | null;
  /** Notices per transaction. */
  batchSize: number;
  http: HttpOptions;
  query: TedQueryConfig;
  /** API, first run (no checkpoint, no `since`): how many days back to ask for (`TED_LOOKBACK_DAYS`). */
  lookbackDays: number;
  /**
   * API: the least time between the starts of two notice XML downloads, default 1,000 ms. The XML lives on
   * ted.europa.eu, which bans clients making more than 500 such requests in 6 minutes for 24 hours
   * (ted.md §2.2); the search itself is one request per 250 notices.
   */
  noticeIntervalMs?: number;
}

export interface TedIngestSummary {
  runId: number;
  source: string;
  kind: TedSourceKind;
  /** API: the expert query sent; null for packages and files. */
  query: string | null;
  /** API: the earliest publication date asked for; packages and files: `--since` as given. */
  since: string | null;
  /** Search result pages (API) or packages read completely. */
  pages: number;
  /** Notices found: search hits, or notice files read. */
  notices: number;
  noticesNew: number;
  noticesUpdated: number;
  noticesUnchanged: number;
  /** Packages and files: notices published before `since`, not applied. */
  skipped: number;
  /** Error rows recorded: notices skipped as unreadable plus unreadable fields of stored ones. */
  errors: number;
  /** The checkpoint after the run (API only). */
  checkpoint: string | null;
}

/** The checkpoint of the Search API source. */
export const TED_API_CHECKPOINT = "ted:api";

/** Default spacing of notice XML downloads (ted.md §2.2: about one request per second). */
const DEFAULT_NOTICE_INTERVAL_MS = 1_000;

/**
 * After this many notice downloads failing in a row the upstream is refusing us (a WAF challenge, an
 * outage), not one notice: the run fails and keeps its checkpoint rather than recording every notice as
 * an error and moving past them.
 */
const MAX_CONSECUTIVE_FETCH_FAILURES = 10;

/** The OJ S is dated in Luxembourg time: the day a publication instant belongs to. */
const OJ_TIME_ZONE = "Europe/Luxembourg";

const DAY_MS = 86_400_000;

/**
 * One TED ingest run. Every notice goes through the same steps whatever its source: read as one XML
 * document (`readTedNotice`), normalized (`normalizeTedNotice`, eForms or R2.0.9), hashed (SHA-256 of its text
 * as published), then applied in batches of `batchSize` (one batch written while the next is read).
 *
 * Sources:
 * - the Search API (`kind` `api`): the expert query from configuration plus `publication-date>=` the later of
 *   `since` and the checkpoint's day minus one day of overlap (neither: `lookbackDays` back). Every hit is
 *   collected first, because the iteration token is short-lived and downloading each notice's XML takes
 *   about a second; then each hit's `links.xml.MUL` is downloaded, since only the XML has per-lot awards;
 * - a daily package (`.tar.gz`, local or URL), streamed; a notice file; a directory of them.
 *
 * A notice that cannot be downloaded (after retries), read or normalized is recorded in `ingest_errors` and
 * skipped; the rest go on. A source that fails — a search request failing after its retries, a corrupt or
 * truncated package, ten notice downloads failing in a row — fails the run once the complete notices before
 * the failure are committed.
 *
 * Checkpoint (API only, key `ted:api`): the newest publication instant stored, moved only once the whole
 * run has committed, so a failed or killed run is simply asked again by the next one. A run cut short by
 * `maxNotices` does not move an existing checkpoint (what it did not reach would be skipped for good); a
 * first run sets one, as for PLACSP. Packages and files never touch it.
 */
export async function ingestTed(deps: IngestDeps, options: TedIngestOptions): Promise<TedIngestSummary> {
  const kind = await classifyTedSource(options.source);
  const checkpoint = kind === "api" ? await getCheckpoint(deps.db, TED_API_CHECKPOINT) : undefined;
  const cursor = checkpoint?.cursorUpdated ?? null;
  const since =
    kind === "api" ? apiSince(options.since, cursor, deps.now(), options.lookbackDays) : options.since;
  const query = kind === "api" ? tedApiQuery(options.query, since ?? undefined) : null;

  const run = await IngestRun.start(deps, {
    source: "ted",
    feed: kind === "api" ? "api" : null,
    location: options.source,
  });
  deps.log.info(
    { runId: run.id, source: options.source, kind, query, since, cursor: cursor?.toISOString() ?? null },
    "ted ingest started",
  );
  const writer = new BatchWriter(run, options.batchSize);
  let notices = 0;
  let skipped = 0;
  let cutShort = false;
  // Notices a package or directory could not deliver (not UTF-8, too large), recorded as they are met.
  const undelivered: EntryFailure[] = [];
  try {
    if (query !== null) {
      const found = await collectHits(deps, options, query, run.id);
      notices = found.hits.length;
      cutShort = found.cutShort;
      await downloadAndApply(deps, options, found.hits, writer);
      await writer.finish(found.pages);
    } else {
      const onSkip = (skip: TedNoticeSkip) => undelivered.push({ entryRef: skip.name, reason: skip.reason });
      const files: AsyncIterable<TedNoticeFile> =
        kind === "package" || kind === "package-url"
          ? readTedPackage(options.source, { http: options.http, onSkip })
          : readTedFiles(options.source, { onSkip });
      for await (const file of files) {
        if (options.maxNotices !== null && notices >= options.maxNotices) {
          break;
        }
        notices++;
        await writer.add(...undelivered.splice(0));
        const outcome = await readNotice(file.xml, file.name, null);
        if ("tender" in outcome && since !== null && publishedDay(outcome) < since) {
          skipped++;
          continue;
        }
        await writer.add(outcome);
      }
      await writer.add(...undelivered.splice(0));
      await writer.finish(kind === "package" || kind === "package-url" ? 1 : 0);
    }
    if (run.newest && kind === "api" && (!cutShort || cursor === null)) {
      await advanceCheckpoint(deps.db, TED_API_CHECKPOINT, { ...run.newest, runId: run.id });
    } else if (kind === "api" && cutShort) {
      deps.log.warn(
        { runId: run.id, maxNotices: options.maxNotices, cursor },
        "stopped at max notices; the checkpoint stays (raise the limit)",
      );
    }
    await run.finish();
  } catch (error) {
    // What was complete before the failure is committed; the error still fails the run.
    await writer
      .add(...undelivered.splice(0))
      .then(() => writer.finish(0))
      .catch(() => undefined);
    await run.finish(error);
    deps.log.warn({ runId: run.id, err: error }, "ted ingest failed");
    throw error;
  }
  // Cross-source links and the aggregates over awards follow the data, as after a PLACSP run.
  await afterIngestRun({ db: deps.db, log: deps.log, now: deps.now });
  const after = kind === "api" ? await getCheckpoint(deps.db, TED_API_CHECKPOINT) : undefined;
  const summary: TedIngestSummary = {
    runId: run.id,
    source: options.source,
    kind,
    query,
    since,
    pages: run.totals.pages,
    notices,
    noticesNew: run.totals.entriesNew,
    noticesUpdated: run.totals.entriesUpdated,
    noticesUnchanged: run.totals.entriesUnchanged,
    skipped,
    errors: run.totals.errors,
    checkpoint: after?.cursorUpdated?.toISOString() ?? null,
  };
  deps.log.info(summary, "ted ingest finished");
  return summary;
}

/**
 * The expert query of a run: the configured override, or the one built from countries and CPV prefixes with
 * the default notice types (contract and award notices), plus `publication-date>=since`. An override keeps
 * a trailing `SORT BY …` after the added condition.
 */
export function tedApiQuery(config: TedQueryConfig, since: string | undefined): string {
  if (config.apiQuery === null) {
    return buildTedExpertQuery({ countries: config.countries, cpvPrefixes: config.cpvPrefixes, since });
  }
  if (since === undefined) {
    return config.apiQuery;
  }
  const sort = /\s+SORT\s+BY\s[\s\S]*$/i.exec(config.apiQuery);
  const base = sort ? config.apiQuery.slice(0, sort.index) : config.apiQuery;
  // buildTedExpertQuery validates the date and writes it in the API's compact form.
  const condition = buildTedExpertQuery({ countries: [], noticeTypes: [], since });
  return `(${base.trim()}) AND ${condition}${sort ? sort[0] : ""}`;
}

/**
 * The earliest publication day a Search API run asks for: the later of `since` and the checkpoint's OJ day
 * minus one day (notices published on the checkpoint's day after the last run read it are not missed);
 * neither: `lookbackDays` before today.
 */
export function apiSince(since: string | null, cursor: Date | null, now: Date, lookbackDays: number): string {
  const fromCursor = cursor === null ? null : shiftDay(ojDay(cursor), -1);
  if (since !== null && fromCursor !== null) {
    return since > fromCursor ? since : fromCursor;
  }
  return since ?? fromCursor ?? new Date(now.getTime() - lookbackDays * DAY_MS).toISOString().slice(0, 10);
}

/** The day of the Official Journal an instant falls on (Luxembourg time). */
function ojDay(instant: Date): string {
  const offset = timeZoneOffsetMinutes(instant.getTime(), OJ_TIME_ZONE);
  return new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, 10);
}

function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function publishedDay(version: IngestVersion): string {
  return version.tender.publicationDate ?? version.tender.upstreamUpdated.slice(0, 10);
}

interface FoundHits {
  hits: TedSearchHit[];
  pages: number;
  /** More hits matched than `maxNotices` allowed. */
  cutShort: boolean;
}

/** Walks every search page first: the iteration token may expire while notices are downloaded. */
async function collectHits(
  deps: IngestDeps,
  options: TedIngestOptions,
  query: string,
  runId: number,
): Promise<FoundHits> {
  const found: FoundHits = { hits: [], pages: 0, cutShort: false };
  const seen = new Set<string>();
  const limit =
    options.maxNotices === null ? TED_SEARCH_MAX_LIMIT : Math.min(options.maxNotices, TED_SEARCH_MAX_LIMIT);
  const search = searchTedNotices({
    apiUrl: options.source,
    query,
    limit,
    http: options.http,
    onPage: (page) => {
      found.pages = page.page;
      deps.log.debug({ runId, ...page }, "ted search page read");
    },
  });
  for await (const hit of search) {
    const ref = hitRef(hit);
    if (seen.has(ref)) {
      continue; // the same notice on two pages: fetched once
    }
    if (options.maxNotices !== null && found.hits.length >= options.maxNotices) {
      found.cutShort = true;
      break;
    }
    seen.add(ref);
    found.hits.push(hit);
  }
  return found;
}

/** Downloads each hit's XML (one request at a time, spaced) and applies it. */
async function downloadAndApply(
  deps: IngestDeps,
  options: TedIngestOptions,
  hits: readonly TedSearchHit[],
  writer: BatchWriter,
): Promise<void> {
  const interval = options.noticeIntervalMs ?? DEFAULT_NOTICE_INTERVAL_MS;
  let lastStart = Number.NEGATIVE_INFINITY;
  let failedInARow = 0;
  for (const hit of hits) {
    const ref = hitRef(hit);
    if (hit.xmlUrl === null) {
      await writer.add({
        entryRef: ref,
        reason: "the search hit has no links.xml.MUL to read the notice from",
      });
      continue;
    }
    const wait = lastStart + interval - performance.now();
    if (wait > 0) {
      await delay(wait, undefined, { signal: options.http.signal });
    }
    lastStart = performance.now();
    let xml: string;
    try {
      xml = await fetchTedNoticeXml(hit.xmlUrl, options.http);
      failedInARow = 0;
    } catch (error) {
      options.http.signal?.throwIfAborted();
      const reason = error instanceof Error ? error.message : String(error);
      failedInARow++;
      if (failedInARow >= MAX_CONSECUTIVE_FETCH_FAILURES) {
        throw new TedSourceError(`${failedInARow} notice downloads failed in a row; the last: ${reason}`, {
          cause: error,
        });
      }
      deps.log.warn({ notice: ref, reason }, "ted notice download failed; recorded and skipped");
      await writer.add({ entryRef: ref, reason });
      continue;
    }
    await writer.add(await readNotice(xml, ref, ref));
  }
}

/** The hit's publication number in the stored form (`611835-2024`), as the API gives it if it is not one. */
function hitRef(hit: TedSearchHit): string {
  return normalizePublicationNumber(hit.publicationNumber) ?? hit.publicationNumber;
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/**
 * One notice's text → a version to apply, or a failure naming it (`label`: its publication number or file
 * name). With `expectedRef`, the notice must be that one: a link serving another notice is not data.
 */
async function readNotice(
  xml: string,
  label: string,
  expectedRef: string | null,
): Promise<IngestVersion | EntryFailure> {
  try {
    const normalized = normalizeTedNotice(await readTedNotice(once(xml)));
    const ref = normalized.tender.sourceRef;
    if (expectedRef !== null && ref !== expectedRef) {
      return { entryRef: label, reason: `the XML served for notice ${expectedRef} is notice ${ref}` };
    }
    return { ...normalized, rawHash: tedRawHash(xml) };
  } catch (error) {
    return { entryRef: label, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * SHA-256 of the notice's XML text as published. A TED notice never changes under its publication number
 * (a change is a new notice), so unlike a PLACSP entry there is no version element to leave out.
 */
export function tedRawHash(xml: string): string {
  return createHash("sha256").update(xml).digest("hex");
}

/**
 * Collects notices into batches and commits each through the run. One batch is written while the next one
 * is read and parsed; batches still commit strictly in order, one at a time.
 */
class BatchWriter {
  readonly #run: IngestRun;
  readonly #batchSize: number;
  #versions: IngestVersion[] = [];
  #failures: EntryFailure[] = [];
  #writing: Promise<unknown> = Promise.resolve();

  constructor(run: IngestRun, batchSize: number) {
    this.#run = run;
    this.#batchSize = run.batchLimit(batchSize);
  }

  async add(...items: (IngestVersion | EntryFailure)[]): Promise<void> {
    await this.#run.pace();
    for (const item of items) {
      if ("tender" in item) {
        this.#versions.push(item);
      } else {
        this.#failures.push(item);
      }
    }
    if (this.#versions.length + this.#failures.length >= this.#batchSize) {
      await this.#flush(0);
    }
  }

  /** Commits what is left, completing `pages` pages, and waits for every write. */
  async finish(pages: number): Promise<void> {
    if (this.#versions.length + this.#failures.length > 0 || pages > 0) {
      await this.#flush(pages);
    }
    await this.#writing;
  }

  async #flush(pages: number): Promise<void> {
    const batch = {
      source: "ted" as const,
      versions: this.#versions,
      tombstones: [],
      failures: this.#failures,
    };
    this.#versions = [];
    this.#failures = [];
    await this.#writing;
    this.#writing = this.#run.commit(batch, pages);
    // Awaited by the next flush or by finish; until then a failure must not count as unhandled.
    this.#writing.catch(() => undefined);
  }
}
