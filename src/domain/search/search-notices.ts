import {
  countSearchRows,
  partyIdsNamedLike,
  type SearchFilters,
  type SearchKind,
  type SearchRowRecord,
  searchRows,
  searchRowsByIds,
  searchTextQuery,
} from "../../db/queries/search.ts";
import { searchDataVersion } from "../../db/queries/search-index.ts";
import type { DomainContext } from "../context.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import type { PartyRef } from "../tenders/get-tender.ts";
import type { SearchIndex } from "./index/build-index.ts";
import { queryIndex } from "./index/query-index.ts";
import { orQueryText, parseTsqueryText } from "./index/text.ts";

export interface SearchInput {
  q?: string;
  cpv?: string;
  buyer?: string;
  company?: string;
  region?: string;
  from?: string;
  to?: string;
  type: SearchKind;
  page: number;
  size: number;
}

/** A row of `GET /v1/search`: every field always present, null when unknown. */
export interface SearchRow {
  kind: SearchKind;
  id: number;
  source_ref: string | null;
  title: string | null;
  date: string | null;
  buyer: PartyRef | null;
  company: PartyRef | null;
  value: number | null;
  currency: string | null;
  cpv: string | null;
  tender_id: number | null;
  tender_source_ref: string | null;
}

export interface SearchResult {
  rows: SearchRow[];
  total: number;
  page: number;
  provenance: Provenance[];
  /** How many rows on this page carry a framework ceiling as value. */
  ceilings: number;
  /** Which engine answered: the in-memory index or SQL (both give the same answer; docs/search.md). */
  answeredFrom: "index" | "sql";
}

/**
 * Full-text and structured search over awards (default), tenders or contracts (awards whose contract is
 * signed). Text is Spanish, stemmed, accent- and case-insensitive and plain: quotes or operators typed by a
 * user are ordinary words, so no input makes the query fail; a text with no searchable word (stop words,
 * punctuation) matches nothing. Answered from the in-memory index when it is fresh, else in SQL; both give the
 * same rows, order and total (docs/search.md).
 */
export async function searchNotices({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: SearchInput;
}): Promise<SearchResult> {
  const empty: SearchResult = {
    rows: [],
    total: 0,
    page: input.page,
    provenance: [],
    ceilings: 0,
    answeredFrom: "sql",
  };
  const q = input.q?.trim() ? input.q.trim() : null;
  if (q !== null && !/[\p{L}\p{N}]/u.test(q)) {
    return empty;
  }
  const [text, version] = await Promise.all([
    q === null ? null : searchTextQuery(ctx.db, q).then(parseTsqueryText),
    ctx.searchIndex ? searchDataVersion(ctx.db) : null,
  ]);
  if (text !== null && text.words.length === 0) {
    return empty;
  }
  const filters: SearchFilters = {
    kind: input.type,
    q,
    rankQuery: text === null ? null : orQueryText(text.words),
    // A trailing check digit ("72000000-5") is accepted and ignored: CPV codes are stored without it.
    cpvPrefix: input.cpv ? (input.cpv.split("-")[0] ?? null) : null,
    buyer: input.buyer ?? null,
    company: input.company ?? null,
    region: input.region ? input.region.toUpperCase() : null,
    from: input.from ?? null,
    to: input.to ?? null,
    limit: input.size,
    offset: (input.page - 1) * input.size,
  };
  const index = version === null ? null : (ctx.searchIndex?.freshFor(version) ?? null);
  const answer =
    (index !== null && (text === null || text.conjunctive)
      ? await searchIndexed(ctx, index, filters, text?.words ?? null)
      : null) ?? (await searchInSql(ctx, filters));
  return {
    rows: answer.records.map((record) => toSearchRow(input.type, record)),
    total: answer.total,
    page: input.page,
    provenance: provenanceFor(answer.records),
    ceilings: answer.records.filter((r) => r.value_is_ceiling && r.value !== null).length,
    answeredFrom: answer.from,
  };
}

interface Answer {
  records: SearchRowRecord[];
  total: number;
  from: "index" | "sql";
}

async function searchInSql(ctx: DomainContext, filters: SearchFilters): Promise<Answer> {
  const [records, total] = await Promise.all([searchRows(ctx.db, filters), countSearchRows(ctx.db, filters)]);
  return { records, total, from: "sql" };
}

const DAY_MS = 86_400_000;
const dayOf = (date: string | null) => (date === null ? null : Date.parse(`${date}T00:00:00Z`) / DAY_MS);

/**
 * The page from the index, its rows read by id. Null (answer in SQL instead) when a row of the page no longer
 * exists: the data changed after the version was read.
 */
async function searchIndexed(
  ctx: DomainContext,
  index: SearchIndex,
  filters: SearchFilters,
  words: string[] | null,
): Promise<Answer | null> {
  const [buyerIds, companyIds] = await Promise.all([
    filters.buyer === null ? null : partyIdsNamedLike(ctx.db, "buyer", filters.buyer),
    filters.company === null ? null : partyIdsNamedLike(ctx.db, "company", filters.company),
  ]);
  const { ids, total } = queryIndex(index, {
    kind: filters.kind,
    words,
    cpvPrefix: filters.cpvPrefix,
    region: filters.region,
    buyerIds,
    companyIds,
    fromDay: dayOf(filters.from),
    toDay: dayOf(filters.to),
    offset: filters.offset,
    limit: filters.limit,
  });
  const records = await searchRowsByIds(ctx.db, filters.kind, ids);
  return records.length === ids.length ? { records, total, from: "index" } : null;
}

function toSearchRow(kind: SearchKind, r: SearchRowRecord): SearchRow {
  return {
    kind,
    id: r.id,
    source_ref: r.source_ref,
    title: r.title,
    date: r.date,
    buyer: r.buyer_id !== null && r.buyer_name !== null ? { id: r.buyer_id, name: r.buyer_name } : null,
    company:
      r.company_id !== null && r.company_name !== null ? { id: r.company_id, name: r.company_name } : null,
    value: r.value,
    currency: r.currency,
    cpv: r.cpv,
    tender_id: r.tender_id,
    tender_source_ref: r.tender_source_ref,
  };
}

/** The upstream notices behind the page, each once, in row order. */
function provenanceFor(records: SearchRowRecord[]): Provenance[] {
  const seen = new Map<string, Provenance>();
  for (const r of records) {
    const key = `${r.tender_source}|${r.tender_source_ref}`;
    if (!seen.has(key)) {
      seen.set(
        key,
        provenanceOf({ source: r.tender_source, source_ref: r.tender_source_ref, url: r.tender_url }),
      );
    }
  }
  return [...seen.values()];
}
