import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import pg from "pg";
import { lockDataDir } from "./data-dir-lock.ts";

/**
 * One SQL dialect, two engines: PostgreSQL through a `pg` pool (production, scale-out) and PGlite (Postgres
 * compiled to WASM, in-process; the zero-setup default). Callers see only this interface, so every query
 * runs unchanged on both, and the test suite runs on both.
 */
export interface Queryable {
  /** One statement with `$1…$n` parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Db extends Queryable {
  readonly engine: "postgres" | "pglite";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Batch writers call this between units of their own CPU work (an entry parsed): it resolves at once, or, on
   * the background lane of the embedded engine, when requests have had their turn (db/lanes.ts). Absent = go on.
   */
  pace?(): Promise<void>;
  /**
   * Set on the background lane of the embedded engine: a request that arrives while one of this view's transactions
   * runs waits for all of it, so batch writers keep each transaction short (ingest batches of at most
   * SHORT_TRANSACTION_ENTRIES, the signal recompute SHORT_TRANSACTION_BUYERS buyers at a time). Absent = no need.
   */
  readonly shortTransactions?: boolean;
  close(): Promise<void>;
}

/*
 * Both engines return the same JS values for the same column types:
 *   int8 -> number (ids and cents stay far below 2^53), numeric -> number (amounts are served as JSON numbers),
 *   date -> "YYYY-MM-DD" string (a calendar date has no time zone; a JS Date would invent one),
 *   timestamptz -> Date, jsonb -> parsed value, arrays -> JS arrays.
 */
const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;

const toNumber = (value: string): number => Number(value);
const asIs = (value: string): string => value;

const pgTypeOverrides: Record<number, (value: string) => unknown> = {
  [INT8]: toNumber,
  [NUMERIC]: toNumber,
  [DATE]: asIs,
};

export function createPgDb(connectionString: string, options: { poolSize?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    // Connections are kept, not closed after node-postgres's default 10 s idle: a new PostgreSQL backend pays a
    // page fault for every shared buffer it touches for the first time, which on a VM is most of a large read
    // (a research brief asked every 11 s: 2.1–2.5 s, 0.42–0.44 s on kept, warmed connections; a probed
    // scan 530 ms on a new backend, 40 ms on the next call). The pool never holds more than `max`, which the
    // server's max_connections budget already counts (docs/deploy.md, Connections).
    idleTimeoutMillis: 0,
    // Every session runs in UTC so that timestamps read and written as text never depend on the server. JIT
    // compilation costs ~60 ms on large scans and pays off only for long analytical queries, which the API
    // does not run.
    options: "-c TimeZone=UTC -c jit=off",
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        pgTypeOverrides[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});

  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params?: readonly unknown[]) {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  });

  return {
    engine: "postgres",
    ...wrap(pool),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * One PostgreSQL connection of its own, outside the pool: what a session-level advisory lock is held on (the
 * lock lives exactly as long as this session, so a process that dies releases it with its connection).
 */
export interface DbSession extends Queryable {
  /** False once the connection has failed or been closed; a lock it held is gone. */
  readonly alive: boolean;
  close(): Promise<void>;
}

/**
 * Opens a dedicated session. TCP keepalives on both ends: the client notices a dead server, and the server
 * ends the session of a vanished host (its locks with it) within about 25 s instead of the kernel's two hours.
 */
export async function openPgSession(connectionString: string, name: string): Promise<DbSession> {
  const client = new pg.Client({
    connectionString,
    application_name: `procurement-intel:${name}`,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options:
      "-c TimeZone=UTC -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3",
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        pgTypeOverrides[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  let alive = true;
  // A lost connection must not crash the process: the owner sees `alive` turn false and opens a new one.
  client.on("error", () => {
    alive = false;
  });
  client.on("end", () => {
    alive = false;
  });
  await client.connect();
  return {
    get alive() {
      return alive;
    },
    async query<T>(sql: string, params?: readonly unknown[]) {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    async close() {
      alive = false;
      await client.end().catch(() => {});
    },
  };
}

export interface PgliteOptions {
  /** Directory for the data files; omitted = in memory. */
  dataDir?: string;
  /** A `dumpDataDir()` image to start from (tests clone a migrated template this way). */
  loadDataDir?: Blob;
}

/** PGlite adds one capability: dumping its data directory as an image (tests clone a template this way). */
export interface PgliteDb extends Db {
  readonly engine: "pglite";
  /** A tarball of the data directory; gzipped unless `gzip: false` (8× larger, loads 15% faster). */
  dumpImage(options?: { gzip?: boolean }): Promise<Blob>;
}

export async function createPgliteDb(options: PgliteOptions = {}): Promise<PgliteDb> {
  // A data directory belongs to one process at a time (data-dir-lock.ts); in memory there is nothing to share.
  const lock = options.dataDir ? lockDataDir(options.dataDir) : null;
  try {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
    }
    const lite = await PGlite.create({
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      extensions: { unaccent, pg_trgm },
      parsers: pgTypeOverrides,
    });
    await lite.exec("SET TIME ZONE 'UTC'");
    return wrapPglite(lite, () => lock?.release());
  } catch (error) {
    lock?.release();
    throw error;
  }
}

type PgliteQueryable = Pick<PGlite, "query" | "exec">;

function wrapPgliteQueryable(target: PgliteQueryable): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      const result = await target.query<T>(sql, params as unknown[] | undefined);
      // PGlite reports affectedRows only for writes; a SELECT's count is its row count, as in `pg`.
      return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

function wrapPglite(lite: PGlite, onClose: () => void): PgliteDb {
  return {
    engine: "pglite",
    dumpImage(options = {}) {
      return lite.dumpDataDir(options.gzip === false ? "none" : "gzip");
    },
    ...wrapPgliteQueryable(lite),
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      // PGlite serialises transactions against all other queries on the instance, which gives the same
      // isolation a pooled PostgreSQL connection would.
      return lite.transaction((tx) => fn(wrapPgliteQueryable(tx)));
    },
    async close() {
      try {
        await lite.close();
      } finally {
        onClose();
      }
    },
  };
}

/** Opens the configured engine: PostgreSQL when a URL is given, otherwise PGlite in `dataDir`. */
export async function openDb(options: {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
}): Promise<Db> {
  if (options.databaseUrl) {
    return createPgDb(options.databaseUrl, { poolSize: options.poolSize });
  }
  return createPgliteDb({ dataDir: options.dataDir });
}
