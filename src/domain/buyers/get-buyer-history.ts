import type { z } from "zod";
import { listAwardsWithTender } from "../../db/queries/awards.ts";
import { findBuyerById } from "../../db/queries/buyers.ts";
import { readBuyerStats } from "../../db/queries/stats.ts";
import { type AwardWithTender, noticesOfAwards, toAwardWithTender } from "../awards/award-with-tender.ts";
import { valueSumCaveats } from "../caveats.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { IdInputSchema } from "../params.ts";
import type { Provenance } from "../provenance.ts";

export interface Recurrence {
  /** CPV division: the first two digits of the awards' CPV codes. */
  cpv: string;
  median_months: number | null;
}

export interface BuyerHistory {
  id: number;
  source_ref: string | null;
  name: string;
  country: string | null;
  nuts: string | null;
  org_type: string | null;
  awards: AwardWithTender[];
  awards_total: number;
  supplier_concentration: number | null;
  top3_share_by_count: number | null;
  top3_share_by_value: number | null;
  recurrence: Recurrence[];
}

export interface BuyerHistoryResult {
  buyer: BuyerHistory;
  provenance: Provenance[];
  caveats: string[];
}

/** How many recent awards the history lists (newest first); `awards_total` counts them all. */
export const BUYER_RECENT_AWARDS = 50;

/** Input: the parameters of GET /v1/buyers/{id}/history and the arguments of the MCP tool get_buyer_history. */
export const BuyerHistoryInputSchema = IdInputSchema;

/**
 * A contracting authority's history: its newest awards with tender context and the aggregates materialized
 * after each ingest run (analytics/refresh-stats.ts): award count, top-3 supplier concentration by count and
 * by value, and per CPV division the median months between consecutive award dates. Provenance names the
 * notices of the listed awards.
 */
export async function getBuyerHistory({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: z.output<typeof BuyerHistoryInputSchema>;
}): Promise<BuyerHistoryResult> {
  const db = readerOf(ctx);
  const row = await findBuyerById(db, input.id);
  if (!row) {
    throw new NotFoundError(
      `No buyer with id ${input.id}.`,
      "Buyer ids come from GET /v1/search (field buyer.id) and from tender.buyer.id on awards.",
    );
  }
  const [stats, awards] = await Promise.all([
    readBuyerStats(db, row.id),
    listAwardsWithTender(db, { buyer: row.id }, { limit: BUYER_RECENT_AWARDS, offset: 0 }),
  ]);
  const byCount = stats?.top3_share_by_count ?? null;
  return {
    buyer: {
      id: row.id,
      source_ref: row.platform_id,
      name: row.name,
      country: row.country,
      nuts: row.nuts,
      org_type: row.org_type,
      awards: awards.map(toAwardWithTender),
      awards_total: stats?.awards_total ?? 0,
      supplier_concentration: byCount,
      top3_share_by_count: byCount,
      top3_share_by_value: stats?.top3_share_by_value ?? null,
      recurrence: (stats?.recurrence ?? []).map((r) => ({ cpv: r.cpv, median_months: r.median_months })),
    },
    provenance: noticesOfAwards(awards),
    caveats: valueSumCaveats(
      "top3_share_by_value",
      stats?.ceilings_excluded ?? 0,
      stats?.non_eur_excluded ?? 0,
    ),
  };
}
