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
  /** Calls answered with a status other than 200. */
  errors: number;
}

export interface MemoryReading {
  rssMb: number;
  heapUsedMb: number;
  /** External memory and array buffers (PGlite's WebAssembly memory counts here). */
  externalMb: number;
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
}

export interface SearchRowsSize {
  rows: number;
  totalBytes: number;
  heapBytes: number;
  indexes: { name: string; bytes: number }[];
}

export interface WorkerOutput {
  engine: "postgres" | "pglite";
  corpus: { tenders: number; awards: number; text: string };
  health: CaseResult;
  results: CaseResult[];
  around: AroundIngest | null;
  memory: {
    afterLoad: MemoryReading;
    afterMix: MemoryReading;
    peakDuringIngest: MemoryReading | null;
    /** Whether readings after load and after the mix follow a full collection (worker run with --expose-gc). */
    gc: boolean;
  };
  searchRows: SearchRowsSize | null;
}
