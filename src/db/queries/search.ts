import type { Queryable } from "../client.ts";
import {
  type DateProbe,
  nearFirstSql,
  newestDateSql,
  planTextRead,
  probeAnswered,
  wordsMatchSql,
} from "./date-probe.ts";
import { Params, spanishTsquery } from "./params.ts";

/**
 * `GET /v1/search` in SQL over the `search_rows` relation (migration 0015, docs/search.md). One statement finds
 * the matching rows and the page's ids, with the total bounded at `SEARCH_WINDOW` rows; another reads the
 * page's display fields. Every value is a bound parameter.
 */

export type SearchKind = "award" | "tender" | "contract";

/**
 * How many matching rows a search counts and can address: `meta.total` is exact up to this many, and a text
 * search ranks the this-many newest matches. The bound is what keeps every search a bounded amount of work.
 */
export const SEARCH_WINDOW = 10_000;

export interface SearchFilters {
  kind: SearchKind;
  /** Plain text; turned into a Spanish tsquery by plainto_tsquery (operators typed by users are just words). */
  q: string | null;
  /** 2..8 digits, check digit already removed. */
  cpvPrefix: string | null;
  /** The buyers and companies whose names match the fragments asked for (`partyIdsNamedLike`). */
  buyerIds: number[] | null;
  companyIds: number[] | null;
  /** NUTS prefix, upper case. */
  region: string | null;
  from: string | null;
  to: string | null;
  limit: number;
  offset: number;
}

export interface SearchRowRecord {
  id: number;
  source_ref: string | null;
  title: string | null;
  date: string | null;
  buyer_id: number | null;
  buyer_name: string | null;
  company_id: number | null;
  company_name: string | null;
  value: number | null;
  currency: string | null;
  cpv: string | null;
  cpv_label_en: string | null;
  cpv_label_es: string | null;
  nuts: string | null;
  nuts_name: string | null;
  value_is_ceiling: boolean;
  tender_id: number;
  tender_source: string;
  tender_source_ref: string;
  tender_url: string | null;
}

export interface SearchPage {
  /** Row ids of the page (award ids, or tender ids for tender rows), in answer order. */
  ids: number[];
  /** Matching rows counted, at most SEARCH_WINDOW + 1 (one more than the window means "more than"). */
  matched: number;
}

/**
 * The kind as a SQL literal, from this fixed table only: written into the statement (not bound) so that the
 * planner always sees it and can use the per-kind partial indexes of migration 0015.
 */
const KIND_LITERAL: Record<SearchKind, string> = {
  award: "'award'",
  contract: "'contract'",
  tender: "'tender'",
};

/**
 * The filters as conditions on `search_rows s`; the text query's expression when there is one. `kind: false` leaves
 * the kind out, for a relation that holds one kind only (`search_tender_winners`, whose rows are dated like `s`).
 */
function whereClause(
  filters: SearchFilters,
  params: Params,
  dateTerms: string | null,
  options: { kind: boolean; indexed?: string | null } = { kind: true },
): { where: string[]; query: string | null } {
  const kind = KIND_LITERAL[filters.kind];
  if (kind === undefined) {
    throw new Error(`unknown search kind: ${String(filters.kind)}`);
  }
  const where = options.kind ? [`s.kind = ${kind}`] : [];
  let query: string | null = null;
  if (filters.q !== null) {
    query = spanishTsquery(params.add(filters.q));
    where.push(wordsMatchSql(query, dateTerms, params, options.indexed ?? null));
  }
  if (filters.cpvPrefix !== null) {
    where.push(`s.cpv_prefixes @> ARRAY[${params.add(filters.cpvPrefix)}]::text[]`);
  }
  if (filters.region !== null) {
    // LIKE prefix on a text_pattern_ops index; the value holds letters and digits only (validated).
    where.push(`s.nuts LIKE ${params.add(filters.region)} || '%'`);
  }
  if (filters.buyerIds !== null) {
    where.push(`s.buyer_id = ANY(${params.add(filters.buyerIds)}::bigint[])`);
  }
  if (filters.companyIds !== null) {
    const companies = params.add(filters.companyIds);
    where.push(
      filters.kind === "tender"
        ? // A tender row matches when one of the tender's searchable awards went to the company.
          `s.company_ids && ${companies}::bigint[]`
        : `s.company_id = ANY(${companies}::bigint[])`,
    );
  }
  if (filters.from !== null) {
    where.push(`s.date >= ${params.add(filters.from)}::date`);
  }
  if (filters.to !== null) {
    where.push(`s.date <= ${params.add(filters.to)}::date`);
  }
  return { where, query };
}

/**
 * The ids of one page and how many rows matched (counting stops at SEARCH_WINDOW + 1). The window is the
 * SEARCH_WINDOW first matching rows in list order (date descending, unknown dates last, id descending).
 * Without a text query the page is a slice of the window in that order; with one, the window is ordered by
 * weighted text rank, then date, then id. A page beyond the window is empty.
 *
 * A search by words alone first asks for the matches of the newest years and quarters only (date-probe.ts): the
 * same answer whenever those hold the window, and otherwise the plain statement answers. Tests compare both
 * ways (`probe: false` skips the step) and, on a small corpus, with a smaller window than SEARCH_WINDOW.
 *
 * A query of more words than MAX_INDEXED_WORDS asks the index for its rarest words only and tests the rest on the
 * rows found (indexed-words.ts); tests compare that with the whole query asked of the index (`indexedWords: false`).
 */
export async function searchPage(
  db: Queryable,
  filters: SearchFilters,
  options: { probe?: boolean; window?: number; indexedWords?: boolean } = {},
): Promise<SearchPage> {
  const window = options.window ?? SEARCH_WINDOW;
  const { probes, indexed } =
    filters.q === null
      ? { probes: [], indexed: null }
      : await planTextRead(db, filters.kind, filters.q, window + 1, {
          probe: options.probe !== false && wordsOnly(filters),
          indexedWords: options.indexedWords !== false,
        });
  for (const probe of probes) {
    const answer = await searchStatement(db, filters, window, probe, indexed);
    if (probeAnswered(probe, answer, window + 1)) {
      return { ids: answer.ids, matched: answer.matched };
    }
  }
  const { ids, matched } = await searchStatement(db, filters, window, null, indexed);
  return { ids, matched };
}

/**
 * No filter but the words. With another filter the words' statistics do not size the probe (a CPV or a date
 * range keeps an unknown share of the matches) and the planner already has a selective index to start from.
 */
function wordsOnly(filters: SearchFilters): boolean {
  return (
    filters.cpvPrefix === null &&
    filters.buyerIds === null &&
    filters.companyIds === null &&
    filters.region === null &&
    filters.from === null &&
    filters.to === null
  );
}

interface SearchAnswer extends SearchPage {
  /** The date of the window's last row (list order); null when nothing matched or it has no date. */
  lastDate: string | null;
  /** With a probe: the kind's newest date, read in the same snapshot as the matches. */
  newest: string | null;
}

async function searchStatement(
  db: Queryable,
  filters: SearchFilters,
  window: number,
  probe: DateProbe | null,
  indexed: string | null,
): Promise<SearchAnswer> {
  const params = new Params();
  const listOrder = "date DESC NULLS LAST, id DESC";
  // A page past the window is empty whatever the rank: its statement only counts the matches, unranked.
  const ranked = filters.q !== null && filters.offset < window;
  const { rows } = await db.query<{
    matched: number;
    ids: (number | string)[];
    last_date: string | null;
    newest: string | null;
  }>(
    // The rank is computed as the rows are read, not after: carrying each row's vector through the sort, the
    // materialized window and the second sort cost twice the read itself (a probed word at 1M awards: 204 ms
    // with the vectors carried, 68 ms with the rank, in one session, alternating). It is computed for every
    // row read (a probe reads ~1.5 rows per row kept; the list-order walk stops at the window).
    `WITH matched AS MATERIALIZED (${matchedRows(filters, params, probe, indexed, ranked, window + 1)}),
     addressable AS (
       SELECT * FROM matched ORDER BY ${listOrder} LIMIT ${params.add(window)}
     )
     SELECT (SELECT count(*)::int FROM matched) AS matched,
            ARRAY(SELECT id FROM addressable
                   ORDER BY ${ranked ? "rank DESC, " : ""}${listOrder}
                   LIMIT ${params.add(filters.limit)} OFFSET ${params.add(filters.offset)}) AS ids,
            ${
              probe
                ? `(SELECT m.date FROM matched m ORDER BY m.date ASC NULLS FIRST, m.id ASC LIMIT 1)::text AS last_date,
                   ${newestDateSql(KIND_LITERAL[filters.kind])} AS newest`
                : "NULL AS last_date, NULL AS newest"
            }`,
    params.values,
  );
  const row = rows[0];
  // An int8[] arrives as strings from `pg` (only scalar int8 is parsed as a number): read the ids as numbers.
  return row
    ? { ids: row.ids.map(Number), matched: row.matched, lastDate: row.last_date, newest: row.newest }
    : { ids: [], matched: 0, lastDate: null, newest: null };
}

/**
 * The first `count` matching rows in list order (id, date, and the text rank when `ranked`), as the body
 * of the `matched` CTE.
 *
 * Named parties alone (a buyer or company fragment, dates allowed) are read party by party: each party's newest
 * `count` rows from its (party, date, id) index, then merged. A fragment's few parties thus cost at most `count`
 * index entries each instead of every row of theirs and a sort: the biggest buyer's fragment (2 buyers, 52,000
 * award rows) 17 ms against 31 ms, and 83–116 ms when PostgreSQL gave the whole read to parallel workers.
 */
function matchedRows(
  filters: SearchFilters,
  params: Params,
  probe: DateProbe | null,
  indexed: string | null,
  ranked: boolean,
  count: number,
): string {
  const byParty = partyRead(filters);
  if (byParty) {
    const { where } = whereClause(byParty.rest, params, null, { kind: byParty.relation === "search_rows" });
    const n = params.add(count);
    // A tender won by two of the named companies is in both lists: kept once.
    const merged = byParty.relation === "search_rows" ? "x.id, x.date" : "DISTINCT x.id, x.date";
    return `SELECT ${merged} FROM unnest(${params.add(byParty.ids)}::bigint[]) AS p (id)
              CROSS JOIN LATERAL (
                SELECT s.${byParty.idColumn} AS id, s.date FROM ${byParty.relation} s
                 WHERE ${[...where, `s.${byParty.column} = p.id`].join(" AND ")}
                 ORDER BY s.date DESC NULLS LAST, s.${byParty.idColumn} DESC
                 LIMIT ${n}) AS x
             ORDER BY x.date DESC NULLS LAST, x.id DESC
             LIMIT ${n}`;
  }
  const listed = (dateTerms: string | null, extra: string[] = []) => {
    const { where, query } = whereClause(filters, params, dateTerms, { kind: true, indexed });
    const columns = `s.id, s.date${query && ranked ? `, ts_rank(s.tsv, ${query}) AS rank` : ""}`;
    return `SELECT ${columns} FROM search_rows s WHERE ${[...where, ...extra].join(" AND ")}`;
  };
  const n = params.add(count);
  if (probe?.near) {
    // Every row read holds the words: the newest `count` matches are all near ones whenever there are that many.
    return nearFirstSql(listed, probe.near, n);
  }
  return `${listed(probe?.terms ?? null)}
           ORDER BY s.date DESC NULLS LAST, s.id DESC
           LIMIT ${n}`;
}

interface PartyRead {
  /** Where each party's rows are listed in list order: the search rows, or a tender row's winners (0026). */
  relation: "search_rows" | "search_tender_winners";
  column: "buyer_id" | "company_id";
  idColumn: "id" | "tender_id";
  ids: number[];
  rest: SearchFilters;
}

/**
 * When the filters are one list of named parties (buyers; companies, on tender rows through the winners
 * relation), dates at most: where to read each party's rows, the parties (each once) and the other filters.
 */
function partyRead(filters: SearchFilters): PartyRead | null {
  if (filters.q !== null || filters.cpvPrefix !== null || filters.region !== null) {
    return null;
  }
  if (filters.buyerIds !== null && filters.companyIds === null) {
    return {
      relation: "search_rows",
      column: "buyer_id",
      idColumn: "id",
      ids: [...new Set(filters.buyerIds)],
      rest: { ...filters, buyerIds: null },
    };
  }
  if (filters.companyIds !== null && filters.buyerIds === null) {
    const tender = filters.kind === "tender";
    return {
      relation: tender ? "search_tender_winners" : "search_rows",
      column: "company_id",
      idColumn: tender ? "tender_id" : "id",
      ids: [...new Set(filters.companyIds)],
      rest: { ...filters, companyIds: null },
    };
  }
  return null;
}

/** The columns of a search row, per kind; `FROM` and joins included, `WHERE` left to the caller. */
function selectRows(kind: SearchKind): string {
  if (kind === "tender") {
    return `SELECT t.id, t.source_ref, t.title, t.publication_date AS date, t.buyer_id, b.name AS buyer_name,
                   NULL::bigint AS company_id, NULL::text AS company_name, t.estimated_value AS value, t.currency,
                   t.cpv_main AS cpv, cl.label_en AS cpv_label_en, cl.label_es AS cpv_label_es, t.nuts,
                   nl.name AS nuts_name, false AS value_is_ceiling, t.id AS tender_id, t.source AS tender_source,
                   t.source_ref AS tender_source_ref, t.url AS tender_url
              FROM tenders t
              LEFT JOIN buyers b ON b.id = t.buyer_id
              LEFT JOIN cpv_codes cl ON cl.code = left(t.cpv_main, 8)
              LEFT JOIN nuts_codes nl ON nl.code = t.nuts`;
  }
  const date = kind === "award" ? "a.award_date" : "a.start_date";
  return `SELECT a.id, a.source_ref, t.title, ${date} AS date, a.buyer_id, b.name AS buyer_name,
                 a.winner_company_id AS company_id, c.name AS company_name, a.value, a.currency,
                 coalesce(a.cpv, t.cpv_main) AS cpv, cl.label_en AS cpv_label_en, cl.label_es AS cpv_label_es,
                 t.nuts, nl.name AS nuts_name, a.value_is_ceiling, t.id AS tender_id,
                 t.source AS tender_source, t.source_ref AS tender_source_ref, t.url AS tender_url
            FROM awards a
            JOIN tenders t ON t.id = a.tender_id
            LEFT JOIN buyers b ON b.id = a.buyer_id
            LEFT JOIN companies c ON c.id = a.winner_company_id
            LEFT JOIN cpv_codes cl ON cl.code = left(coalesce(a.cpv, t.cpv_main), 8)
            LEFT JOIN nuts_codes nl ON nl.code = t.nuts`;
}

/**
 * The rows with these ids (award ids, or tender ids for tender rows), in the order given. Ids that no longer
 * exist are missing from the answer.
 */
export async function searchRowsByIds(
  db: Queryable,
  kind: SearchKind,
  ids: readonly number[],
): Promise<SearchRowRecord[]> {
  if (ids.length === 0) {
    return [];
  }
  const { rows } = await db.query<SearchRowRecord>(
    `${selectRows(kind)} WHERE ${kind === "tender" ? "t.id" : "a.id"} = ANY($1::bigint[])`,
    [ids],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Whether a plain-text search has a searchable word: a text of only stop words or punctuation gives an empty
 * Spanish tsquery, which matches nothing.
 */
export async function hasSearchableWords(db: Queryable, q: string): Promise<boolean> {
  const { rows } = await db.query<{ words: number }>(
    `SELECT numnode(${spanishTsquery("$1")})::int AS words`,
    [q],
  );
  return (rows[0]?.words ?? 0) > 0;
}

/** Ids of the buyers or companies published under a name containing the fragment (folded), ascending. */
export async function partyIdsNamedLike(
  db: Queryable,
  party: "buyer" | "company",
  fragment: string,
): Promise<number[]> {
  // Names are compared folded (lower case, no accents, punctuation as spaces) against every alias, through
  // the stored folded form and its trigram index (migration 0014).
  const [table, column] =
    party === "buyer" ? ["buyer_aliases", "buyer_id"] : ["company_aliases", "company_id"];
  const { rows } = await db.query<{ id: number }>(
    `SELECT DISTINCT ${column} AS id FROM ${table} WHERE alias_folded LIKE '%' || fold_name($1) || '%' ORDER BY 1`,
    [fragment],
  );
  return rows.map((row) => row.id);
}
