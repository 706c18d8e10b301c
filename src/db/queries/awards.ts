import type { Queryable } from "../client.ts";
import type { AwardRow } from "./tenders.ts";

/** An award with the context of its tender (the tender's buyer, not a copy on the award). */
export interface AwardWithTenderRow extends AwardRow {
  tender_source: string;
  tender_source_ref: string;
  tender_url: string | null;
  tender_title: string | null;
  tender_cpv_main: string | null;
  tender_publication_date: string | null;
  tender_buyer_id: number | null;
  tender_buyer_name: string | null;
}

/** Whose awards: a company's wins (`winner`) or a contracting authority's awards (`buyer`). */
export type AwardOwner = { winner: number } | { buyer: number };

// Fixed fragments, chosen by the caller's kind of owner; the id is always a parameter. Each matches an index
// (awards_winner_idx, awards_buyer_idx) whose order is the list order, so a page is one index range scan.
/** Awards superseded by the same procedure's awards on another source (docs/linking.md) are counted once. */
function ownerFilter(owner: AwardOwner): string {
  return "winner" in owner
    ? "a.winner_company_id = $1 AND NOT a.superseded"
    : "a.buyer_id = $1 AND NOT a.superseded";
}

function ownerId(owner: AwardOwner): number {
  return "winner" in owner ? owner.winner : owner.buyer;
}

/**
 * One page of an owner's awards, newest first: award date descending with unknown dates last, then id
 * descending (a total order, so pages never overlap or skip a row). The page's ids are picked from the index
 * alone (an index-only scan, however deep the page) and only those rows are joined.
 */
export async function listAwardsWithTender(
  db: Queryable,
  owner: AwardOwner,
  page: { limit: number; offset: number },
): Promise<AwardWithTenderRow[]> {
  const { rows } = await db.query<AwardWithTenderRow>(
    `SELECT a.id, a.tender_id, a.source, a.source_ref, a.award_date, a.lot, a.winner_company_id,
            c.name AS winner_company_name, a.value, a.currency, a.bidders_count, a.framework, a.value_is_ceiling,
            a.duration_months, a.start_date, a.start_date_kind, a.end_date,
            t.source AS tender_source, t.source_ref AS tender_source_ref, t.url AS tender_url,
            t.title AS tender_title, t.cpv_main AS tender_cpv_main, t.publication_date AS tender_publication_date,
            t.buyer_id AS tender_buyer_id, b.name AS tender_buyer_name
       FROM (SELECT a.id
               FROM awards a
              WHERE ${ownerFilter(owner)}
              ORDER BY a.award_date DESC NULLS LAST, a.id DESC
              LIMIT $2 OFFSET $3) page
       JOIN awards a ON a.id = page.id
       JOIN tenders t ON t.id = a.tender_id
       LEFT JOIN companies c ON c.id = a.winner_company_id
       LEFT JOIN buyers b ON b.id = t.buyer_id
      ORDER BY a.award_date DESC NULLS LAST, a.id DESC`,
    [ownerId(owner), page.limit, page.offset],
  );
  return rows;
}

export interface NoticeRow {
  source: string;
  source_ref: string;
  url: string | null;
}

/** The tender notices behind an owner's newest `limit` awards, in award order (one row per award). */
export async function listAwardNotices(
  db: Queryable,
  owner: AwardOwner,
  limit: number,
): Promise<NoticeRow[]> {
  const { rows } = await db.query<NoticeRow>(
    `SELECT t.source, t.source_ref, t.url
       FROM (SELECT a.tender_id, a.award_date, a.id
               FROM awards a
              WHERE ${ownerFilter(owner)}
              ORDER BY a.award_date DESC NULLS LAST, a.id DESC
              LIMIT $2) a
       JOIN tenders t ON t.id = a.tender_id
      ORDER BY a.award_date DESC NULLS LAST, a.id DESC`,
    [ownerId(owner), limit],
  );
  return rows;
}
