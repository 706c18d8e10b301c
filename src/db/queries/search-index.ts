import type { Queryable } from "../client.ts";

/**
 * What the in-memory search index (src/domain/search/index/) reads: the data version it is built for, and the
 * searchable columns of every tender and award, in id order, a chunk at a time (keyset paging, so a build
 * never holds one long query and PGlite keeps serving other queries between chunks).
 */

/** Changes whenever a transaction that wrote tenders or awards commits (migration 0013). */
export async function searchDataVersion(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ version: number }>("SELECT version FROM search_data_version");
  return rows[0]?.version ?? 0;
}

export interface IndexTenderRecord {
  id: number;
  /** Days since 1970-01-01. */
  publication_day: number | null;
  buyer_id: number | null;
  nuts: string | null;
  /** Every 2..8-digit prefix of every CPV code of the notice (the column search filters on). */
  cpv_prefixes: string[];
  /** The tsvector's text form: `'lexeme':1,4 'other':2`. */
  tsv: string;
  /** Not linked to another source's tender (search answers a procedure once, by its canonical side). */
  canonical: boolean;
}

export async function readIndexTenders(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<IndexTenderRecord[]> {
  const { rows } = await db.query<IndexTenderRecord>(
    `SELECT id, publication_date - DATE '1970-01-01' AS publication_day, buyer_id, nuts, cpv_prefixes,
            tsv::text AS tsv, linked_to IS NULL AS canonical
       FROM tenders
      WHERE id > $1
      ORDER BY id
      LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

export interface IndexAwardRecord {
  id: number;
  tender_id: number;
  buyer_id: number | null;
  winner_company_id: number | null;
  award_day: number | null;
  start_day: number | null;
  contract_signed: boolean;
  superseded: boolean;
}

export async function readIndexAwards(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<IndexAwardRecord[]> {
  const { rows } = await db.query<IndexAwardRecord>(
    `SELECT id, tender_id, buyer_id, winner_company_id, award_date - DATE '1970-01-01' AS award_day,
            start_date - DATE '1970-01-01' AS start_day, contract_signed, superseded
       FROM awards
      WHERE id > $1
      ORDER BY id
      LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}
