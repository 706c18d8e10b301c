import type { Db } from "../../../db/client.ts";
import { readIndexAwards, readIndexTenders, searchDataVersion } from "../../../db/queries/search-index.ts";
import type { Logger } from "../../../lib/logger.ts";
import { type SearchIndex, SearchIndexBuilder } from "./build-index.ts";

/** Rows read per query while building: large enough to be quick, small enough to let other queries in. */
const BUILD_CHUNK_ROWS = 20_000;

/** Lets queued I/O callbacks (requests) run before the next step of a build. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Reads a table chunk by chunk in id order (keyset paging) and hands each chunk to `add`. */
async function readAll<T extends { id: number }>(
  read: (afterId: number) => Promise<T[]>,
  add: (rows: T[]) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (let after = 0; ; ) {
    signal?.throwIfAborted();
    const rows = await read(after);
    const last = rows[rows.length - 1];
    if (last === undefined) {
      return;
    }
    add(rows);
    after = last.id;
  }
}

/**
 * Reads every tender and award and builds the index for the data version read before the first row. A build
 * that is aborted (the server stopping) throws the signal's reason between two steps.
 */
export async function buildSearchIndex(db: Db, signal?: AbortSignal): Promise<SearchIndex> {
  const version = await searchDataVersion(db);
  const builder = new SearchIndexBuilder();
  await readAll(
    (after) => readIndexTenders(db, after, BUILD_CHUNK_ROWS),
    (rows) => builder.addTenders(rows),
    signal,
  );
  await readAll(
    (after) => readIndexAwards(db, after, BUILD_CHUNK_ROWS),
    (rows) => builder.addAwards(rows),
    signal,
  );
  return builder.finish(version, async () => {
    await yieldToEventLoop();
    signal?.throwIfAborted();
  });
}

interface HolderDeps {
  db: Db;
  log: Logger;
  /** How an index is built (tests substitute a failing one). */
  build?: (db: Db, signal?: AbortSignal) => Promise<SearchIndex>;
}

/**
 * Holds one process's search index for one database. An index is used only while the data version is the one
 * it was built from, so search never answers from stale data: until a fresh index is ready, search runs in SQL.
 * Builds run one at a time; a stale index is dropped when its replacement starts building (it would not be
 * used, and two would double the memory).
 */
export class SearchIndexHolder {
  private current: SearchIndex | null = null;
  private building: Promise<void> | null = null;
  private failedVersion: number | null = null;

  private readonly deps: HolderDeps;

  constructor(deps: HolderDeps) {
    this.deps = deps;
  }

  /** The index if it was built from exactly this data version, else null. */
  freshFor(version: number): SearchIndex | null {
    return this.current !== null && this.current.version === version ? this.current : null;
  }

  /** The version and size of the index in place, if any. */
  status(): Pick<SearchIndex, "version" | "stats"> | null {
    return this.current === null ? null : { version: this.current.version, stats: this.current.stats };
  }

  /**
   * Builds the index now (or joins the build under way) and resolves when it is in place, or when the build
   * failed or was aborted through `signal`.
   */
  refresh(signal?: AbortSignal): Promise<void> {
    if (this.building === null) {
      this.building = this.rebuild(signal).finally(() => {
        this.building = null;
      });
    }
    return this.building;
  }

  private async rebuild(signal?: AbortSignal): Promise<void> {
    const { db, log, build = buildSearchIndex } = this.deps;
    const started = performance.now();
    this.current = null;
    try {
      const index = await build(db, signal);
      this.current = index;
      this.failedVersion = null;
      log.info(
        { ...index.stats, version: index.version, ms: Math.round(performance.now() - started) },
        "search index built",
      );
    } catch (error) {
      if (signal?.aborted) {
        return;
      }
      this.failedVersion = await searchDataVersion(db).catch(() => null);
      log.error({ err: error }, "search index build failed; search answers from SQL until the data changes");
    }
  }

  /**
   * Keeps the index fresh: every `intervalMs` reads the data version and rebuilds when it changed and then
   * stayed the same for one interval (during an ingest run the data changes continuously; building then would
   * only produce stale indexes). The first build starts at once.
   */
  watch(intervalMs: number): { stop(): Promise<void> } {
    let lastSeen: number | null = null;
    let stopped = false;
    const stopping = new AbortController();
    const tick = async () => {
      const version = await searchDataVersion(this.deps.db);
      const settled = version === lastSeen || this.current === null;
      lastSeen = version;
      if (this.freshFor(version) === null && settled && version !== this.failedVersion) {
        await this.refresh(stopping.signal);
      }
    };
    let timer: NodeJS.Timeout | null = null;
    const schedule = () => {
      if (!stopped) {
        timer = setTimeout(run, intervalMs);
        timer.unref();
      }
    };
    const run = () => {
      tick()
        .catch((error: unknown) => this.deps.log.warn({ err: error }, "search index check failed"))
        .finally(schedule);
    };
    run();
    return {
      stop: async () => {
        stopped = true;
        stopping.abort(new Error("search index watch stopped"));
        if (timer !== null) {
          clearTimeout(timer);
        }
        await this.building?.catch(() => {});
      },
    };
  }
}
