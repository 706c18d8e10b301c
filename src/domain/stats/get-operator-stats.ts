import { countLeadsByStatus, type LeadStatus } from "../../db/queries/leads.ts";
import {
  accountStats,
  callStats,
  revenueStats,
  sourceStats,
  type WindowBounds,
} from "../../db/queries/operator-stats.ts";
import type { DomainContext } from "../context.ts";

const DAY_MS = 86_400_000;

export interface OperatorStats {
  generated_at: string;
  sources: {
    source: "placsp" | "ted";
    tenders: number;
    awards: number;
    last_ingestion: {
      status: string;
      started_at: string;
      finished_at: string | null;
      entries_new: number;
      entries_updated: number;
      errors: number;
    } | null;
    last_success_at: string | null;
  }[];
  calls: { endpoint: string; method: string; last_24h: number; last_7d: number; all_time: number }[];
  revenue: {
    method: string;
    currency: string;
    last_24h_cents: number;
    last_7d_cents: number;
    all_time_cents: number;
  }[];
  accounts: { credits: number; mor: number; mor_active: number; balance_cents: number };
  leads: Record<LeadStatus, number>;
}

/**
 * What the operator watches (`GET /v1/stats`): records and the last ingestion per source, paid calls per
 * endpoint and payment method, revenue by payment method, accounts by kind and leads by status. Windows are
 * the 24 hours and 7 days before `now`, and all time.
 */
export async function getOperatorStats({ ctx }: { ctx: DomainContext }): Promise<OperatorStats> {
  const now = ctx.now();
  const windows: WindowBounds = {
    day: new Date(now.getTime() - DAY_MS),
    week: new Date(now.getTime() - 7 * DAY_MS),
    now,
  };
  const [sources, calls, revenue, accounts, leads] = await Promise.all([
    sourceStats(ctx.db),
    callStats(ctx.db, windows),
    revenueStats(ctx.db, windows),
    accountStats(ctx.db, now),
    countLeadsByStatus(ctx.db),
  ]);
  return {
    generated_at: now.toISOString(),
    sources: sources.map((row) => ({
      source: row.source,
      tenders: row.tenders,
      awards: row.awards,
      last_ingestion:
        row.last_status !== null && row.last_started_at !== null
          ? {
              status: row.last_status,
              started_at: row.last_started_at.toISOString(),
              finished_at: row.last_finished_at?.toISOString() ?? null,
              entries_new: row.last_entries_new ?? 0,
              entries_updated: row.last_entries_updated ?? 0,
              errors: row.last_errors ?? 0,
            }
          : null,
      last_success_at: row.last_success_at?.toISOString() ?? null,
    })),
    calls,
    revenue,
    accounts,
    leads,
  };
}
