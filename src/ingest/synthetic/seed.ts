import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestPlacsp, type PlacspIngestSummary } from "../placsp/ingest-placsp.ts";
import type { IngestDeps } from "../run-context.ts";
import type { HttpOptions } from "../sources/http.ts";
import { type WriteResult, writeSyntheticFeed } from "./feed.ts";

export interface SeedOptions {
  entries: number;
  seed: number;
  /** Where the pages are written; a temporary directory (removed afterwards) when null. */
  outDir: string | null;
  http: HttpOptions;
}

export interface SeedResult {
  written: Omit<WriteResult, "files"> & { dir: string | null };
  ingest: PlacspIngestSummary;
}

/**
 * Writes a synthetic corpus as real CODICE ATOM pages and ingests it through the same pipeline as the live
 * feed (directory source), so benchmarks and demos exercise exactly the production code path.
 */
export async function seedSynthetic(deps: IngestDeps, options: SeedOptions): Promise<SeedResult> {
  const dir = options.outDir ?? (await mkdtemp(join(tmpdir(), "pi-synthetic-")));
  try {
    const { files: _files, ...written } = await writeSyntheticFeed(dir, {
      entries: options.entries,
      seed: options.seed,
    });
    const ingest = await ingestPlacsp(deps, {
      source: dir,
      feed: "643",
      since: null,
      maxPages: null,
      batchSize: 500,
      http: options.http,
    });
    return { written: { ...written, dir: options.outDir }, ingest };
  } finally {
    if (options.outDir === null) {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
