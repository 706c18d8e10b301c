import { mkdir, readdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../lib/logger.ts";
import { ingestPlacsp } from "./placsp/ingest-placsp.ts";
import type { IngestDeps } from "./run-context.ts";
import type { HttpOptions } from "./sources/http.ts";
import { ingestTed, type TedIngestOptions } from "./ted/ingest-ted.ts";

/**
 * The import folder: how data gets into a running server, above all one on an embedded database, which no
 * second process may open (db/data-dir-lock.ts). Files dropped into the folder are ingested by the server
 * itself, oldest name first, then moved to `done/` (or to `failed/` with a `.error.txt` beside them):
 * - PLACSP: `.atom` pages and `.zip` monthly archives;
 * - TED: `.xml` notices and `.tar.gz` / `.tgz` daily packages.
 * A file is taken once it has not changed for a few seconds (a copy in progress is left alone; moving a
 * finished file in is instant). The same ingestion as the CLI's: idempotent, signals and aggregates refreshed.
 */

export interface ImportFolderOptions {
  dir: string;
  intervalMs: number;
  http: HttpOptions;
  ted: Pick<TedIngestOptions, "query" | "lookbackDays">;
}

export interface ImportFolder {
  /** One pass over the folder now (tests, and every tick). */
  scan(): Promise<{ imported: string[]; failed: string[] }>;
  stop(): Promise<void>;
}

/** A file changed more recently than this may still be being written. */
const SETTLE_MS = 2_000;

type Kind = "placsp" | "ted";

export function kindOfImport(name: string): Kind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith(".atom") || lower.endsWith(".zip")) {
    return "placsp";
  }
  if (lower.endsWith(".xml") || lower.endsWith(".tar.gz") || lower.endsWith(".tgz")) {
    return "ted";
  }
  return null;
}

async function moveInto(dir: string, sub: "done" | "failed", name: string): Promise<string> {
  const target = join(dir, sub);
  await mkdir(target, { recursive: true });
  // A timestamp prefix keeps a re-imported file from overwriting the earlier one.
  const moved = join(target, `${new Date().toISOString().replace(/[:.]/g, "-")}_${name}`);
  await rename(join(dir, name), moved);
  return moved;
}

async function importOne(deps: IngestDeps, options: ImportFolderOptions, path: string, kind: Kind) {
  if (kind === "placsp") {
    return ingestPlacsp(deps, {
      source: path,
      feed: null,
      since: null,
      maxPages: null,
      batchSize: 500,
      http: options.http,
    });
  }
  return ingestTed(deps, {
    source: path,
    since: null,
    maxNotices: null,
    batchSize: 250,
    http: options.http,
    query: options.ted.query,
    lookbackDays: options.ted.lookbackDays,
  });
}

export function startImportFolder(deps: IngestDeps, options: ImportFolderOptions): ImportFolder {
  const log: Logger = deps.log;
  let running: Promise<{ imported: string[]; failed: string[] }> | null = null;

  const pass = async () => {
    const imported: string[] = [];
    const failed: string[] = [];
    await mkdir(options.dir, { recursive: true });
    const entries = (await readdir(options.dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort();
    // Which files are settled is decided once, when the pass starts: a file still being written then waits for
    // the next pass, however long the imports before it take.
    const startedMs = deps.now().getTime();
    const settled: string[] = [];
    for (const name of entries) {
      const info = await stat(join(options.dir, name)).catch(() => null);
      if (info && startedMs - info.mtimeMs >= SETTLE_MS) {
        settled.push(name);
      }
    }
    for (const name of settled) {
      const path = join(options.dir, name);
      const kind = kindOfImport(name);
      try {
        if (kind === null) {
          throw new Error("not an importable file: expected .atom or .zip (PLACSP), .xml or .tar.gz (TED)");
        }
        const summary = await importOne(deps, options, path, kind);
        const moved = await moveInto(options.dir, "done", name);
        log.info({ file: name, kind, moved, summary }, "imported file");
        imported.push(name);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const moved = await moveInto(options.dir, "failed", name).catch(() => null);
        if (moved) {
          await writeFile(`${moved}.error.txt`, `${reason}\n`).catch(() => {});
        }
        log.error({ file: name, kind, reason, moved }, "import failed");
        failed.push(name);
      }
    }
    return { imported, failed };
  };

  const scan = () => {
    // One pass at a time: a tick during a long import waits for it instead of starting another.
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    scan().catch((error: unknown) =>
      log.error(
        { reason: error instanceof Error ? error.message : String(error) },
        "import folder scan failed",
      ),
    );
  }, options.intervalMs);
  log.info({ dir: options.dir, every_ms: options.intervalMs }, "import folder watched");
  return {
    scan,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
