import type { Queryable } from "../client.ts";
import { LISTED_CONFIDENCE_RANK } from "./renewals.ts";

/**
 * Reads behind GET /v1/companies/{id}/opportunities (domain/companies/list-company-opportunities.ts owns the
 * rules and the weights; this file only turns them into SQL).
 */

export interface OpportunityProfileRow {
  /** Buyers of the history awards, by id. */
  buyers: number[];
  /** Distinct 8-digit CPV codes of the history awards (the lot's CPV, else the tender's), in code order. */
  cpvs: string[];
  /** Median of the history's EUR award values that are not framework ceilings; null when none is known. */
  median_value: number | null;
}

/**
 * The award history a company's opportunities are matched against; undefined when there is no such company.
 * The history is the company's own awards plus the awards of every joint venture (UTE) it is a member of: a
 * member did that work too. Values follow the aggregates' spend rule (docs/decisions.md, Company aggregates):
 * EUR only, framework ceilings left out.
 *
 * The profile stored with the company's aggregates (company_stats, migration 0027) answers when it is current:
 * the company has a row, no change to its awards is pending a refresh (stats_dirty; aggregates and marks
 * change in one transaction, so one statement sees them consistent) and it belongs to no joint venture (its row
 * holds its own awards only). Otherwise the profile is read live (`readLiveOpportunityProfile`). Both are
 * computed with the same rules; a test compares them for every company of a loaded database.
 */
export async function readOpportunityProfile(
  db: Queryable,
  companyId: number,
): Promise<OpportunityProfileRow | undefined> {
  const { rows } = await db.query<OpportunityProfileRow & { current: boolean }>(
    `SELECT s.profile_buyers AS buyers, s.profile_cpvs AS cpvs, s.profile_median_value AS median_value,
            (s.profile_buyers IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM stats_dirty d WHERE d.kind = 'company' AND d.id = c.id)
             AND NOT EXISTS (SELECT 1 FROM company_members m WHERE m.member_id = c.id)) AS current
       FROM companies c
       LEFT JOIN company_stats s ON s.company_id = c.id
      WHERE c.id = $1`,
    [companyId],
  );
  const stored = rows[0];
  if (!stored) {
    return undefined;
  }
  if (stored.current) {
    return { buyers: stored.buyers.map(Number), cpvs: stored.cpvs, median_value: stored.median_value };
  }
  return readLiveOpportunityProfile(db, companyId);
}

/**
 * The profile read from the awards themselves. The winner ids are gathered into an array first so that the awards
 * are read with one index scan per id (an `IN (subquery)` may be planned as a hashed sequential scan of every
 * award), and `awards_winner_profile_idx` (migration 0017) covers every column read, so the scans are index-only.
 * The awards are first hashed into distinct (buyer, CPV) pairs (a few hundred for a winner of tens of thousands of
 * awards), and buyers and CPVs are taken from those: on a 23,572-award winner this halved the time of
 * de-duplicating every award twice. The median is a second index-only scan (a sort of the values).
 */
export async function readLiveOpportunityProfile(
  db: Queryable,
  companyId: number,
): Promise<OpportunityProfileRow | undefined> {
  const { rows } = await db.query<OpportunityProfileRow>(
    `WITH winners AS MATERIALIZED (
       SELECT ARRAY(SELECT $1::bigint UNION SELECT m.group_id FROM company_members m WHERE m.member_id = $1) AS ids
     ),
     pairs AS MATERIALIZED (
       SELECT a.buyer_id, a.cpv
         FROM awards a
        WHERE a.winner_company_id = ANY ((SELECT ids FROM winners)::bigint[]) AND NOT a.superseded
        GROUP BY a.buyer_id, a.cpv
     )
     SELECT ARRAY(SELECT DISTINCT p.buyer_id FROM pairs p WHERE p.buyer_id IS NOT NULL ORDER BY 1) AS buyers,
            ARRAY(SELECT DISTINCT left(p.cpv, 8) COLLATE "C" FROM pairs p WHERE p.cpv ~ '^[0-9]{8}' ORDER BY 1)
              AS cpvs,
            (SELECT percentile_cont(0.5) WITHIN GROUP (
                      ORDER BY (CASE WHEN NOT a.value_is_ceiling AND a.currency = 'EUR' THEN a.value END)::float8)
               FROM awards a
              WHERE a.winner_company_id = ANY ((SELECT ids FROM winners)::bigint[]) AND NOT a.superseded)
              AS median_value
       FROM companies c
      WHERE c.id = $1`,
    [companyId],
  );
  const row = rows[0];
  // An int8[] arrives as strings from `pg` (only scalar int8 is parsed as a number).
  return row ? { ...row, buyers: row.buyers.map(Number) } : undefined;
}

/** What a tender is matched on, prepared by the domain from the profile. */
export interface OpportunityMatch {
  /** "Today" (the domain clock's calendar date) and "now" (the domain clock's instant). */
  today: string;
  now: Date;
  windowDays: number;
  buyers: readonly number[];
  /** The history's CPV prefixes of 8, 6, 4 and 2 digits. */
  cpv8: readonly string[];
  cpv6: readonly string[];
  cpv4: readonly string[];
  cpv2: readonly string[];
  medianValue: number | null;
}

/** The points of each score component (the domain's formula, passed in so the SQL holds no number of it). */
export interface OpportunityWeights {
  sameBuyer: number;
  cpv8: number;
  cpv6: number;
  cpv4: number;
  cpv2: number;
  /** Recency: `recencyMax` points minus one per full `recencyStepDays` days since publication, never below 0. */
  recencyMax: number;
  recencyStepDays: number;
  /** Estimated value within a factor `valueNearFactor` of the median (else within `valueFarFactor`). */
  valueNear: number;
  valueNearFactor: number;
  valueFar: number;
  valueFarFactor: number;
  /** A renewal signal of the tender's buyer re-tendered by this very tender. */
  renewalRetendered: number;
  /** An open renewal signal of the buyer in the tender's CPV division whose window holds the publication date. */
  renewalOpen: number;
}

export interface OpportunityRow {
  id: number;
  source: string;
  source_ref: string;
  title: string | null;
  publication_date: string | null;
  deadline: Date | null;
  cpv_main: string | null;
  estimated_value: number | null;
  currency: string | null;
  nuts: string | null;
  url: string | null;
  buyer_id: number | null;
  buyer_name: string | null;
  score: number;
  same_buyer: boolean;
  same_cpv: boolean;
}

/**
 * One page of scored opportunities and the number of them, in one statement.
 *
 * Plan: the candidate set is bounded by the window, so it is read first, from the partial indexes of tenders that can
 * still be open (migrations 0017, 0023: not tombstoned, not linked to their PLACSP procedure, not awarded, signed,
 * cancelled or deserted; the subquery repeats their predicate), "published since today - window" and "deadline after
 * now" OR-ed into one bitmap. `OFFSET 0` keeps the buyer and CPV match out of that scan: given the chance, the planner
 * ANDs the window with a GIN scan of `cpv_prefixes` for the company's divisions, which reads a whole division of the
 * history (111,334 entries, 22 ms on 1M awards) to trim a window of a few hundred rows. The match is then checked on
 * the window's rows (`cpv_prefixes` holds every 2- to 8-digit prefix of every CPV of the tender, so `&&` against the
 * history's prefixes is a CPV match at that length). Also dropped as not open: a tender whose newest notice announces a
 * result (an award, direct-award, signature, modification or completion notice, on either source; a cancelled one is
 * closed by its status) and every tender with a published result (an award row, won by anyone: this also drops what the
 * company won). The renewal evidence is two index probes per candidate; buyer names are joined for the page only. Every
 * candidate is scored (the order needs all scores), then sorted by score descending and id descending; the total comes
 * from the same materialized set, so a page beyond the last still answers the real total (one row of nulls carries it).
 */
export async function listOpportunities(
  db: Queryable,
  match: OpportunityMatch,
  weights: OpportunityWeights,
  page: { limit: number; offset: number },
): Promise<{ rows: OpportunityRow[]; total: number }> {
  // A page beyond the last is one row of nulls carrying the total.
  type PageRow = { [K in keyof OpportunityRow]: OpportunityRow[K] | null } & { total: number };
  const { rows } = await db.query<PageRow>(
    `WITH candidates AS (
       SELECT t.id, t.source, t.source_ref, t.title, t.publication_date, t.deadline, t.cpv_main, t.estimated_value,
              t.currency, t.nuts, t.url, t.buyer_id,
              coalesce(t.buyer_id = ANY ($3::bigint[]), false) AS same_buyer,
              CASE WHEN t.cpv_prefixes && $4::text[] THEN 8
                   WHEN t.cpv_prefixes && $5::text[] THEN 6
                   WHEN t.cpv_prefixes && $6::text[] THEN 4
                   WHEN t.cpv_prefixes && $7::text[] THEN 2
                   ELSE 0 END AS cpv_digits
         FROM (SELECT w.id, w.source, w.source_ref, w.title, w.publication_date, w.deadline, w.cpv_main,
                      w.estimated_value, w.currency, w.nuts, w.url, w.buyer_id, w.cpv_prefixes, w.notice_type
                 FROM tenders w
                WHERE (w.publication_date >= $1::date - $9::int OR w.deadline > $2::timestamptz)
                  AND w.deleted_at IS NULL AND w.linked_to IS NULL
                  AND (w.status IS NULL OR w.status NOT IN ('awarded', 'signed', 'cancelled', 'deserted'))
                OFFSET 0) AS t
        WHERE (t.buyer_id = ANY ($3::bigint[]) OR t.cpv_prefixes && $7::text[])
          AND (t.notice_type IS NULL OR t.notice_type NOT IN ('award-notice', 'direct-award-notice', 'contract-signed',
                                                               'modification', 'completion'))
          AND NOT EXISTS (SELECT 1 FROM awards a WHERE a.tender_id = t.id)
     ),
     scored AS (
       SELECT c.*,
              (CASE WHEN c.same_buyer THEN $10::int ELSE 0 END
               + CASE c.cpv_digits WHEN 8 THEN $11::int WHEN 6 THEN $12::int WHEN 4 THEN $13::int
                                   WHEN 2 THEN $14::int ELSE 0 END
               + CASE WHEN c.publication_date IS NULL THEN 0
                      ELSE greatest(0, least($15::int, $15::int - ($1::date - c.publication_date) / $16::int)) END
               + CASE WHEN $8::numeric IS NULL OR c.estimated_value IS NULL OR c.currency IS DISTINCT FROM 'EUR'
                      THEN 0
                      WHEN c.estimated_value * $18::numeric >= $8::numeric
                       AND c.estimated_value <= $8::numeric * $18::numeric THEN $17::int
                      WHEN c.estimated_value * $20::numeric >= $8::numeric
                       AND c.estimated_value <= $8::numeric * $20::numeric THEN $19::int
                      ELSE 0 END
               + CASE WHEN EXISTS (SELECT 1 FROM renewal_signals s WHERE s.retendered_by = c.id) THEN $21::int
                      WHEN c.buyer_id IS NOT NULL AND c.publication_date IS NOT NULL AND EXISTS (
                             SELECT 1 FROM renewal_signals s
                              WHERE s.buyer_id = c.buyer_id AND s.cpv_division = left(c.cpv_main, 2)
                                AND s.retendered_by IS NULL AND s.confidence_rank >= $25
                                AND c.publication_date BETWEEN s.window_start AND s.window_end) THEN $22::int
                      ELSE 0 END)::int AS score
         FROM candidates c
     ),
     page AS (
       SELECT s.* FROM scored s ORDER BY s.score DESC, s.id DESC LIMIT $23 OFFSET $24
     )
     SELECT p.id, p.source, p.source_ref, p.title, p.publication_date, p.deadline, p.cpv_main, p.estimated_value,
            p.currency, p.nuts, p.url, p.buyer_id, b.name AS buyer_name, p.score, p.same_buyer,
            p.cpv_digits > 0 AS same_cpv, n.total
       FROM (SELECT count(*)::int AS total FROM scored) AS n
       LEFT JOIN page p ON true
       LEFT JOIN buyers b ON b.id = p.buyer_id
      ORDER BY p.score DESC, p.id DESC`,
    [
      match.today,
      match.now,
      match.buyers,
      match.cpv8,
      match.cpv6,
      match.cpv4,
      match.cpv2,
      match.medianValue,
      match.windowDays,
      weights.sameBuyer,
      weights.cpv8,
      weights.cpv6,
      weights.cpv4,
      weights.cpv2,
      weights.recencyMax,
      weights.recencyStepDays,
      weights.valueNear,
      weights.valueNearFactor,
      weights.valueFar,
      weights.valueFarFactor,
      weights.renewalRetendered,
      weights.renewalOpen,
      page.limit,
      page.offset,
      LISTED_CONFIDENCE_RANK,
    ],
  );
  const total = rows[0]?.total ?? 0;
  return { rows: rows.filter((r): r is PageRow & OpportunityRow => r.id !== null), total };
}
