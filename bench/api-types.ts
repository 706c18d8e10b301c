/** What the API benchmark's worker (bench/workers/api-queries.ts) reports to bench/api.ts. */

export interface CaseResult {
  endpoint: string;
  label: string;
  /** The first call, before anything the service caches. */
  first: number;
  ms: number[];
  status: number;
  /** meta.total of the last response, when the endpoint sends one. */
  total: number | null;
  /** meta.total_exact of the last response, when sent (false: the total is capped). */
  totalExact: boolean | null;
  /** Rows in the last response's page. */
  rows: number | null;
}

export interface WindowResult {
  seconds: number;
  ms: number[];
  /** The query of the mix each call of `ms` was (its label), in the same order. */
  labels: string[];
  /** Calls answered with a status other than 200. */
  errors: number;
  /**
   * The database floor's samples in this window, one per pass over the mix: a search slower during an ingest by
   * as much as this floor lost CPU to the ingest, not by waiting on it.
   */
  dbFloor: number[];
  /** Each call's [start, end] in ms (start = when it was due), in the order of `ms`. */
  spans: [number, number][];
  /** The API process's event-loop delay over the window (perf_hooks.monitorEventLoopDelay, 10 ms resolution), ms. */
  loopDelay: { p50: number; p99: number; max: number };
}

/** The embedded engine's holds by the in-process ingest during its window (bench/workers/api-queries.ts). */
export interface IngestHolds {
  /** Transactions and scripts of the ingest. */
  count: number;
  /** Their durations. */
  ms: number[];
  /** Searches of the window whose span overlapped one of them. */
  searchesOverlapping: number;
  /** The latencies of the others. */
  clearMs: number[];
  /** The process's GC pauses during the window, and during the window before the ingest. */
  gcMs: number[];
  gcBeforeMs: number[];
  /** Latencies of the searches that overlapped neither a hold nor a GC pause; before the ingest, no GC pause. */
  clearOfGcMs: number[];
  beforeClearOfGcMs: number[];
}

export interface MemoryReading {
  rssMb: number;
  heapUsedMb: number;
  /** External memory and array buffers (PGlite's WebAssembly memory counts here). */
  externalMb: number;
}

/** The steps afterIngestRun runs at the end of an ingest, as the pipeline logged them (null: not logged). */
export interface AfterIngestSteps {
  /** Incremental aggregate refresh (refreshStats). */
  statsMs: number | null;
  /**
   * Incremental renewal-signal recompute (recomputeSignals): buyers and buyer x CPV division pairs marked dirty by
   * the run, their signals computed, of which written (new or changed) and removed.
   */
  signals: {
    buyers: number;
    pairs: number;
    signals: number;
    written: number;
    removed: number;
    ms: number;
    /** Its phases in ms (RecomputeSignalsResult.phases), when logged. */
    phases?: Record<string, number>;
  } | null;
}

export interface IngestOutcome {
  entries: number;
  entriesNew: number;
  entriesUpdated: number;
  entriesUnchanged: number;
  errors: number;
  /** The ingest itself (pipeline and the aggregate refresh that follows it). */
  seconds: number;
  entriesPerSecond: number;
  afterIngest: AfterIngestSteps;
  /** Peak RSS of the ingest process (PostgreSQL only: on PGlite the ingest runs in the API process). */
  peakRssMb: number | null;
}

export interface AroundIngest {
  windows: { before: WindowResult; during: WindowResult; after: WindowResult };
  /** processSeconds: the "during" window, from starting the ingest (its process on PostgreSQL) to its end. */
  ingest: IngestOutcome & { processSeconds: number };
  tenders: { before: number; after: number };
  awards: { before: number; after: number };
  peakDuringIngest: MemoryReading;
  /** PGlite only; null on PostgreSQL. */
  holds: IngestHolds | null;
}

export interface TableSize {
  rows: number;
  totalBytes: number;
  heapBytes: number;
  indexes: { name: string; bytes: number }[];
}

/** The full renewal-signal recompute timed before the endpoints (bench/api.ts), and what it wrote. */
export interface SignalsSummary {
  seconds: number;
  buyers: number;
  signals: number;
  /** "Today" the open counts are taken at (the server's calendar date). */
  today: string;
  byType: {
    type: string;
    signals: number;
    buyers: number;
    retendered: number;
    /** Not re-tendered and window not over today: what GET /v1/renewals can list. */
    open: number;
    /** Open and overlapping [today, today + 12 months] (the endpoint's default window). */
    openNext12Months: number;
    high: number;
    medium: number;
    low: number;
    /** Median of basis.median_interval_days (recurrence) or of the window length in days (expiry). */
    medianDays: number | null;
  }[];
}

export interface WorkerOutput {
  engine: "postgres" | "pglite";
  /** Whether the in-process ingest (PGlite) ran in the background lane (src/db/lanes.ts). */
  lanes: boolean;
  /** Where an in-process ingest parsed its pages: its own thread (as the server) or the serving thread. */
  parse: "thread" | "inline";
  /**
   * On PostgreSQL, where the ingest ran: a process of its own (the default), a thread of the API process with its
   * own pool (--pg-ingest thread, as the server runs it), or the API process's serving thread (--pg-ingest in-process).
   */
  pgIngest: "own-process" | "thread" | "in-process";
  /** The pause after each search around the ingest, ms (0: one request always in flight). */
  thinkMs: number;
  corpus: { tenders: number; awards: number; text: string };
  health: CaseResult;
  /** Milliseconds of the database floor (a fixed CPU loop in the database), once per round of the mix. */
  dbFloor: number[];
  results: CaseResult[];
  around: AroundIngest | null;
  memory: {
    afterLoad: MemoryReading;
    afterMix: MemoryReading;
    peakDuringIngest: MemoryReading | null;
    /** Whether readings after load and after the mix follow a full collection (worker run with --expose-gc). */
    gc: boolean;
  };
  searchRows: TableSize | null;
  renewalSignals: TableSize | null;
  /** What the new endpoints' cases were picked as (deterministic, from the loaded database). */
  picks: string[];
}
