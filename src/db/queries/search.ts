import type { Queryable } from "../client.ts";

/**
 * `GET /v1/search` in SQL. One statement builds the page of rows, another the total; both share the WHERE
 * clause built here from the validated filters, always with bound parameters.
 */

export type SearchKind = "award" | "tender" | "contract";

export interface SearchFilters {
  kind: SearchKind;
  /** Plain text; turned into a Spanish tsquery by plainto_tsquery (operators typed by users are just words). */
  q: string | null;
  /** The tsquery text rows are ranked against (`'a' | 'b'`: the words of q joined by OR); null without q. */
  rankQuery: string | null;
  /** 2..8 digits, check digit already removed. */
  cpvPrefix: string | null;
  /** Name fragments, matched on the folded aliases of the party. */
  buyer: string | null;
  company: string | null;
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
  value_is_ceiling: boolean;
  tender_id: number;
  tender_source: string;
  tender_source_ref: string;
  tender_url: string | null;
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The column a row's date comes from, per kind (spec: from/to apply to it). */
function dateColumn(kind: SearchKind): string {
  return { award: "a.award_date", tender: "t.publication_date", contract: "a.start_date" }[kind];
}

interface Where {
  where: string[];
  /** The tsquery expression when there is a text query (ranks by it). */
  query: string | null;
  /** Whether a condition reads the tender (award counts can then skip the join). */
  usesTender: boolean;
}

function whereClause(filters: SearchFilters, params: Params): Where {
  // A procedure published on both sources is answered once, by its canonical (PLACSP) side: docs/linking.md.
  const where: string[] = [filters.kind === "tender" ? "t.linked_to IS NULL" : "NOT a.superseded"];
  let query: string | null = null;
  const tenderFilters = [filters.q, filters.cpvPrefix, filters.region];
  if (filters.kind === "contract") {
    where.push("a.contract_signed");
  }
  if (filters.q !== null) {
    query = `plainto_tsquery('spanish', immutable_unaccent(${params.add(filters.q)}))`;
    where.push(`t.tsv @@ ${query}`);
  }
  if (filters.cpvPrefix !== null) {
    where.push(`t.cpv_prefixes @> ARRAY[${params.add(filters.cpvPrefix)}]::text[]`);
  }
  if (filters.region !== null) {
    // LIKE prefix on a text_pattern_ops index; the value holds letters and digits only (validated).
    where.push(`t.nuts LIKE ${params.add(filters.region)} || '%'`);
  }
  if (filters.buyer !== null) {
    const buyerColumn = filters.kind === "tender" ? "t.buyer_id" : "a.buyer_id";
    where.push(`${buyerColumn} IN (${partiesNamedLike("buyer", params.add(filters.buyer))})`);
  }
  if (filters.company !== null) {
    const companies = partiesNamedLike("company", params.add(filters.company));
    where.push(
      filters.kind === "tender"
        ? `EXISTS (SELECT 1 FROM awards aw WHERE aw.tender_id = t.id AND aw.winner_company_id IN (${companies}))`
        : `a.winner_company_id IN (${companies})`,
    );
  }
  if (filters.from !== null) {
    where.push(`${dateColumn(filters.kind)} >= ${params.add(filters.from)}::date`);
  }
  if (filters.to !== null) {
    where.push(`${dateColumn(filters.kind)} <= ${params.add(filters.to)}::date`);
  }
  const usesTender = filters.kind === "tender" || tenderFilters.some((f) => f !== null);
  return { where, query, usesTender };
}

function fromClause(kind: SearchKind, usesTender: boolean): string {
  if (kind === "tender") {
    return "FROM tenders t";
  }
  // Every award has its tender (foreign key), so counting awards needs the join only to filter on the tender.
  return usesTender ? "FROM awards a JOIN tenders t ON t.id = a.tender_id" : "FROM awards a";
}

/** The columns of a search row, per kind; `FROM` and joins included, `WHERE` left to the caller. */
function selectRows(kind: SearchKind): string {
  if (kind === "tender") {
    return `SELECT t.id, t.source_ref, t.title, t.publication_date AS date, t.buyer_id, b.name AS buyer_name,
                   NULL::bigint AS company_id, NULL::text AS company_name, t.estimated_value AS value, t.currency,
                   t.cpv_main AS cpv, false AS value_is_ceiling, t.id AS tender_id, t.source AS tender_source,
                   t.source_ref AS tender_source_ref, t.url AS tender_url
              FROM tenders t
              LEFT JOIN buyers b ON b.id = t.buyer_id`;
  }
  return `SELECT a.id, a.source_ref, t.title, ${dateColumn(kind)} AS date, a.buyer_id, b.name AS buyer_name,
                 a.winner_company_id AS company_id, c.name AS company_name, a.value, a.currency,
                 coalesce(a.cpv, t.cpv_main) AS cpv, a.value_is_ceiling, t.id AS tender_id,
                 t.source AS tender_source, t.source_ref AS tender_source_ref, t.url AS tender_url
            FROM awards a
            JOIN tenders t ON t.id = a.tender_id
            LEFT JOIN buyers b ON b.id = a.buyer_id
            LEFT JOIN companies c ON c.id = a.winner_company_id`;
}

/**
 * One page of rows in a total, deterministic order: with a text query by rank, then date, then id; without,
 * by date, then id; dates descending with unknown dates last, ids descending.
 */
export async function searchRows(db: Queryable, filters: SearchFilters): Promise<SearchRowRecord[]> {
  const params = new Params();
  const { where, query } = whereClause(filters, params);
  const date = dateColumn(filters.kind);
  const id = filters.kind === "tender" ? "t.id" : "a.id";
  // ts_rank against the words joined by OR, which the in-memory index computes alike (docs/search.md).
  const rank = query ? `ts_rank(t.tsv, ${params.add(filters.rankQuery ?? "")}::tsquery) DESC, ` : "";
  const limit = params.add(filters.limit);
  const offset = params.add(filters.offset);
  const { rows } = await db.query<SearchRowRecord>(
    `${selectRows(filters.kind)}
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY ${rank}${date} DESC NULLS LAST, ${id} DESC
      LIMIT ${limit} OFFSET ${offset}`,
    params.values,
  );
  return rows;
}

/** How many rows match the filters (all pages). */
export async function countSearchRows(db: Queryable, filters: SearchFilters): Promise<number> {
  const params = new Params();
  const { where, usesTender } = whereClause(filters, params);
  const { rows } = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total ${fromClause(filters.kind, usesTender)}
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}`,
    params.values,
  );
  return rows[0]?.total ?? 0;
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
 * The Spanish tsquery of a plain-text search, as text (`'servici' & 'mantenimient'`): the same
 * plainto_tsquery the SQL filter uses, so the index and SQL read a text query alike. Empty when the text has
 * no searchable word (only stop words or punctuation).
 */
export async function searchTextQuery(db: Queryable, q: string): Promise<string> {
  const { rows } = await db.query<{ query: string }>(
    "SELECT plainto_tsquery('spanish', immutable_unaccent($1))::text AS query",
    [q],
  );
  return rows[0]?.query ?? "";
}

/** Ids of the buyers or companies published under a name containing the fragment (folded), ascending. */
export async function partyIdsNamedLike(
  db: Queryable,
  party: "buyer" | "company",
  fragment: string,
): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT DISTINCT id FROM (${partiesNamedLike(party, "$1")}) AS matched (id) ORDER BY id`,
    [fragment],
  );
  return rows.map((row) => row.id);
}

/**
 * The ids of the parties one of whose names contains the fragment, compared folded (lower case, no accents,
 * punctuation as spaces; stored in alias_folded, with a trigram index). `param` is the fragment's placeholder.
 */
function partiesNamedLike(party: "buyer" | "company", param: string): string {
  const [table, column] =
    party === "buyer" ? ["buyer_aliases", "buyer_id"] : ["company_aliases", "company_id"];
  return `SELECT p.${column} FROM ${table} p WHERE p.alias_folded LIKE '%' || fold_name(${param}) || '%'`;
}
