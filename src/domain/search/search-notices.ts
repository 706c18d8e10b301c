import { z } from "zod";
import {
  hasSearchableWords,
  partyIdsNamedLike,
  SEARCH_WINDOW,
  type SearchFilters,
  type SearchRowRecord,
  searchPage,
  searchRowsByIds,
} from "../../db/queries/search.ts";
import { type DomainContext, readerOf } from "../context.ts";
import {
  CpvParam,
  DateParam,
  hasNoNul,
  NameFragmentParam,
  NO_NUL_RULE,
  PageParam,
  RegionParam,
  SizeParam,
} from "../params.ts";
import { type PartyRef, partyRef } from "../party.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";

/** The row kinds a search lists: awards (default), tenders, or contracts (awards whose contract is signed). */
export const SEARCH_KINDS = ["award", "tender", "contract"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** `from` must not be after `to`; reported on `to` so the message names a parameter. */
function datesInOrder(value: { from?: string; to?: string }, ctx: z.core.$RefinementCtx): void {
  if (value.from && value.to && value.from > value.to) {
    ctx.addIssue({ code: "custom", path: ["to"], message: `a date on or after from (${value.from})` });
  }
}

/** The input of `searchNotices` (REST query of GET /v1/search, arguments of the MCP tool search_tenders). */
export const SearchInputSchema = z
  .object({
    q: z
      .string()
      .max(200)
      .refine(hasNoNul, { error: NO_NUL_RULE })
      .optional()
      .meta({ description: "Plain-text Spanish full-text query over title and description (max 200)." }),
    cpv: CpvParam.optional(),
    buyer: NameFragmentParam.optional(),
    company: NameFragmentParam.optional(),
    region: RegionParam.optional(),
    from: DateParam.optional(),
    to: DateParam.optional(),
    type: z
      .enum(SEARCH_KINDS)
      .default("award")
      .meta({ description: "Row kind; from/to apply to award_date, publication_date or start_date." }),
    page: PageParam,
    size: SizeParam,
  })
  .superRefine(datesInOrder);

export type SearchInput = z.output<typeof SearchInputSchema>;

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
  /** The CPV's labels when the CPV reference data is loaded; null otherwise. */
  cpv_label_en: string | null;
  cpv_label_es: string | null;
  /** The notice's NUTS code and, when the NUTS reference data is loaded, its name. */
  nuts: string | null;
  nuts_name: string | null;
  tender_id: number | null;
  tender_source_ref: string | null;
}

export interface SearchResult {
  rows: SearchRow[];
  /** Matching rows, exact up to SEARCH_WINDOW; SEARCH_WINDOW (and `totalExact` false) when more match. */
  total: number;
  totalExact: boolean;
  page: number;
  provenance: Provenance[];
  /** How many rows on this page carry a framework ceiling as value. */
  ceilings: number;
}

/**
 * Full-text and structured search over awards (default), tenders or contracts (awards whose contract is
 * signed), in SQL over the search relation (docs/search.md). Text is Spanish, stemmed, accent- and
 * case-insensitive and plain: quotes or operators typed by a user are ordinary words, so no input makes the
 * query fail; a text with no searchable word (stop words, punctuation) matches nothing. Totals are exact up to
 * SEARCH_WINDOW rows; with a text query, the SEARCH_WINDOW newest matches are ranked by weighted text rank.
 */
export async function searchNotices({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: SearchInput;
}): Promise<SearchResult> {
  const db = readerOf(ctx);
  const empty: SearchResult = {
    rows: [],
    total: 0,
    totalExact: true,
    page: input.page,
    provenance: [],
    ceilings: 0,
  };
  const q = input.q?.trim() ? input.q.trim() : null;
  if (q !== null && !(/[\p{L}\p{N}]/u.test(q) && (await hasSearchableWords(db, q)))) {
    return empty;
  }
  const [buyerIds, companyIds] = await Promise.all([
    input.buyer ? partyIdsNamedLike(db, "buyer", input.buyer) : null,
    input.company ? partyIdsNamedLike(db, "company", input.company) : null,
  ]);
  if (buyerIds?.length === 0 || companyIds?.length === 0) {
    return empty; // no party goes by that name
  }
  const filters: SearchFilters = {
    kind: input.type,
    q,
    // A trailing check digit ("72000000-5") is accepted and ignored: CPV codes are stored without it.
    cpvPrefix: input.cpv ? (input.cpv.split("-")[0] ?? null) : null,
    buyerIds,
    companyIds,
    region: input.region ? input.region.toUpperCase() : null,
    from: input.from ?? null,
    to: input.to ?? null,
    limit: input.size,
    offset: (input.page - 1) * input.size,
  };
  const { ids, matched } = await searchPage(db, filters);
  const records = await searchRowsByIds(db, input.type, ids);
  return {
    rows: records.map((record) => toSearchRow(input.type, record)),
    total: Math.min(matched, SEARCH_WINDOW),
    totalExact: matched <= SEARCH_WINDOW,
    page: input.page,
    provenance: provenanceFor(records),
    ceilings: records.filter((r) => r.value_is_ceiling && r.value !== null).length,
  };
}

function toSearchRow(kind: SearchKind, r: SearchRowRecord): SearchRow {
  return {
    kind,
    id: r.id,
    source_ref: r.source_ref,
    title: r.title,
    date: r.date,
    buyer: partyRef(r.buyer_id, r.buyer_name),
    company: partyRef(r.company_id, r.company_name),
    value: r.value,
    currency: r.currency,
    cpv: r.cpv,
    cpv_label_en: r.cpv_label_en,
    cpv_label_es: r.cpv_label_es,
    nuts: r.nuts,
    nuts_name: r.nuts_name,
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
