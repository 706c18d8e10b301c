import { createReadStream, readFileSync, utimesSync } from "node:fs";
import type { Db } from "../../src/db/client.ts";
import { ingestPlacspPage, type PageResult } from "../../src/ingest/placsp/ingest-page.ts";
import { inlineParser, type PageParser } from "../../src/ingest/placsp/parse-thread.ts";
import { IngestRun } from "../../src/ingest/run-context.ts";
import {
  type SyntheticFeedOptions,
  type WriteResult,
  writeSyntheticFeed,
} from "../../src/ingest/synthetic/feed.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { SHARED_DIR } from "./engines.ts";

export const PLACSP_FIXTURES = `${SHARED_DIR}fixtures/placsp/`;
export const TWO_ENTRIES = `${PLACSP_FIXTURES}licitaciones_completo3_2025-12_2entries_tombstone.atom`;
export const LIFECYCLE = `${PLACSP_FIXTURES}licitaciones_completo3_lifecycle_17165996.atom`;
export const AGGREGATED = `${PLACSP_FIXTURES}agregadas_sinmenores_2026-09_1entry_tombstone.atom`;

const log = createLogger("silent");

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/**
 * A synthetic feed written into an import folder and marked settled (modified a minute ago): the import folder
 * takes only files no longer being written. Returns what `writeSyntheticFeed` wrote.
 */
export async function writeSettledSyntheticFeed(
  dir: string,
  options: SyntheticFeedOptions,
): Promise<WriteResult> {
  const written = await writeSyntheticFeed(dir, options);
  const past = new Date(Date.now() - 60_000);
  for (const file of written.files) {
    utimesSync(file, past, past);
  }
  return written;
}

/** Runs one page (a fixture path or inline XML) through the real page pipeline as one ingest run. */
export async function ingestPage(
  db: Db,
  page: { file: string } | { xml: string },
  options: { batchSize?: number; feed?: string | null; since?: string | null; parser?: PageParser } = {},
): Promise<{ run: IngestRun; page: PageResult }> {
  const run = await IngestRun.start(
    { db, log, now: () => new Date() },
    {
      source: "placsp",
      feed: options.feed ?? "643",
      location: "file" in page ? page.file : "inline",
    },
  );
  const body = "file" in page ? createReadStream(page.file) : once(page.xml);
  try {
    const result = await ingestPlacspPage(run, body, {
      feed: options.feed ?? "643",
      batchSize: options.batchSize ?? 500,
      since: options.since ?? null,
      parser: options.parser ?? inlineParser,
    });
    await run.finish();
    return { run, page: result };
  } catch (error) {
    await run.finish(error);
    throw error;
  }
}

/** The fixture split into its header and its `<entry>` blocks, to build pages of any shape from real entries. */
export function splitFeed(file: string): { header: string; tombstones: string[]; entries: string[] } {
  const text = readFileSync(file, "utf8");
  const firstEntry = text.search(/<entry>/);
  const head = text.slice(0, firstEntry);
  const tombstones = [...head.matchAll(/<at:deleted-entry[\s\S]*?<\/at:deleted-entry>/g)].map((m) => m[0]);
  const header = head.replace(/<at:deleted-entry[\s\S]*?<\/at:deleted-entry>/g, "");
  const entries = [...text.matchAll(/<entry>[\s\S]*?<\/entry>/g)].map((m) => m[0]);
  return { header, tombstones, entries };
}

export function buildPage(header: string, parts: string[]): string {
  return `${header}${parts.join("\n")}\n</feed>\n`;
}

export function tombstoneXml(ref: string, when: string, type: string): string {
  return `<at:deleted-entry ref="${ref}" when="${when}"><at:comment type="${type}"/></at:deleted-entry>`;
}

/**
 * Everything ingestion stores, without surrogate ids or bookkeeping times, in a total order: two databases with
 * equal dumps hold the same data.
 */
export async function canonicalDump(db: Db): Promise<string> {
  const queries = [
    `SELECT t.source, t.source_ref, t.feed, t.folder_id, t.notice_type, t.publication_date, t.title, t.cpv_main,
            t.cpv_all, t.procedure_type, t.contract_type, t.deadline, t.estimated_value, t.nuts, t.url, t.status,
            t.source_codes, t.normalization_version, t.framework,
            t.duration_months, b.name AS buyer, t.upstream_updated, t.raw_hash, t.deleted_at, t.deletion_reason
       FROM tenders t LEFT JOIN buyers b ON b.id = t.buyer_id ORDER BY t.source, t.source_ref`,
    `SELECT t.source_ref, v.upstream_updated, v.status, v.raw_hash
       FROM tender_versions v JOIN tenders t ON t.id = v.tender_id ORDER BY t.source_ref, v.raw_hash`,
    `SELECT t.source_ref, a.award_key, a.lot, a.result_code, a.award_date, c.name AS winner, c.nif, a.value,
            a.value_payable, a.bidders_count, a.framework, a.value_is_ceiling, a.start_date, a.start_date_kind,
            a.contract_signed,
            a.extension_text, a.extension_months, a.extension_end_date
       FROM awards a JOIN tenders t ON t.id = a.tender_id LEFT JOIN companies c ON c.id = a.winner_company_id
      ORDER BY t.source_ref, a.award_key`,
    "SELECT name, name_norm, nif, is_joint_venture FROM companies ORDER BY name_norm, nif",
    `SELECT c.name_norm, a.alias FROM company_aliases a JOIN companies c ON c.id = a.company_id
      ORDER BY c.name_norm, a.alias`,
    "SELECT name, nif, dir3, platform_id FROM buyers ORDER BY name, nif",
    "SELECT source, source_ref, deleted_at, reason FROM tender_tombstones ORDER BY source_ref, deleted_at",
    // The search relation, with ids replaced by the keys they stand for (ids depend on arrival order).
    `SELECT s.kind, t.source_ref, a.award_key, s.date, s.tsv::text AS tsv, s.cpv_prefixes, s.nuts, b.name AS buyer,
            c.name AS company,
            (SELECT array_agg(w.name ORDER BY w.name) FROM companies w WHERE w.id = ANY(s.company_ids)) AS winners,
            s.value, s.currency
       FROM search_rows s
       JOIN tenders t ON t.id = s.tender_id
       LEFT JOIN awards a ON s.kind <> 'tender' AND a.id = s.id
       LEFT JOIN buyers b ON b.id = s.buyer_id
       LEFT JOIN companies c ON c.id = s.company_id
      ORDER BY s.kind, t.source, t.source_ref, a.award_key`,
  ];
  const parts: unknown[] = [];
  for (const sql of queries) {
    parts.push((await db.query(sql)).rows);
  }
  return JSON.stringify(parts, null, 1);
}
