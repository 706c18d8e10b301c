import type { Queryable } from "../client.ts";

/** Read-only aggregates for the operator (`GET /v1/stats`). Windows end at `now`, the caller's clock. */

export interface SourceStatsRow {
  source: "placsp" | "ted";
  tenders: number;
  awards: number;
  last_status: string | null;
  last_started_at: Date | null;
  last_finished_at: Date | null;
  last_entries_new: number | null;
  last_entries_updated: number | null;
  last_errors: number | null;
  last_success_at: Date | null;
}

export async function sourceStats(db: Queryable): Promise<SourceStatsRow[]> {
  const { rows } = await db.query<SourceStatsRow>(
    `SELECT s.source,
            (SELECT count(*)::int FROM tenders t WHERE t.source = s.source AND t.deleted_at IS NULL) AS tenders,
            (SELECT count(*)::int FROM awards a WHERE a.source = s.source) AS awards,
            r.status AS last_status, r.started_at AS last_started_at, r.finished_at AS last_finished_at,
            r.entries_new AS last_entries_new, r.entries_updated AS last_entries_updated, r.errors AS last_errors,
            (SELECT max(finished_at) FROM ingest_runs ok WHERE ok.source = s.source AND ok.status = 'succeeded')
              AS last_success_at
       FROM (VALUES ('placsp'), ('ted')) AS s (source)
       LEFT JOIN LATERAL (
         SELECT status, started_at, finished_at, entries_new, entries_updated, errors
           FROM ingest_runs WHERE source = s.source ORDER BY started_at DESC, id DESC LIMIT 1
       ) r ON true
      ORDER BY s.source`,
  );
  return rows;
}

export interface WindowBounds {
  /** Start of the last 24 hours. */
  day: Date;
  /** Start of the last 7 days. */
  week: Date;
  now: Date;
}

export interface CallStatsRow {
  endpoint: string;
  method: string;
  last_24h: number;
  last_7d: number;
  all_time: number;
}

/** Served paid calls per endpoint and payment method. */
export async function callStats(db: Queryable, windows: WindowBounds): Promise<CallStatsRow[]> {
  const { rows } = await db.query<CallStatsRow>(
    `SELECT endpoint, method,
            count(*) FILTER (WHERE at > $1)::int AS last_24h,
            count(*) FILTER (WHERE at > $2)::int AS last_7d,
            count(*)::int AS all_time
       FROM api_calls WHERE at <= $3
      GROUP BY endpoint, method
      ORDER BY endpoint, method`,
    [windows.day, windows.week, windows.now],
  );
  return rows;
}

export interface RevenueRow {
  method: string;
  currency: string;
  last_24h_cents: number;
  last_7d_cents: number;
  all_time_cents: number;
}

/**
 * Money taken, by how it came in: calls paid per call (x402, dev) at their price, including credit bundles, in
 * USD; subscription payments reported by the provider's webhooks (`mor`), in their currency. Calls paid from a
 * balance are not revenue: the money came in with the bundle or the subscription.
 */
export async function revenueStats(db: Queryable, windows: WindowBounds): Promise<RevenueRow[]> {
  const { rows } = await db.query<RevenueRow>(
    `SELECT method, currency,
            coalesce(sum(cents) FILTER (WHERE at > $1), 0)::bigint AS last_24h_cents,
            coalesce(sum(cents) FILTER (WHERE at > $2), 0)::bigint AS last_7d_cents,
            coalesce(sum(cents), 0)::bigint AS all_time_cents
       FROM (
         SELECT method, 'USD' AS currency, price_cents::bigint AS cents, at
           FROM api_calls WHERE method NOT IN ('credits', 'subscription') AND at <= $3
         UNION ALL
         SELECT 'mor', upper(currency), amount_cents, received_at
           FROM webhook_events
          WHERE outcome = 'granted' AND amount_cents IS NOT NULL AND currency IS NOT NULL AND received_at <= $3
       ) money
      GROUP BY method, currency
      ORDER BY method, currency`,
    [windows.day, windows.week, windows.now],
  );
  return rows;
}

export interface AccountStatsRow {
  credits: number;
  mor: number;
  mor_active: number;
  balance_cents: number;
}

export async function accountStats(db: Queryable, now: Date): Promise<AccountStatsRow> {
  const { rows } = await db.query<AccountStatsRow>(
    `SELECT count(*) FILTER (WHERE kind = 'credits')::int AS credits,
            count(*) FILTER (WHERE kind = 'mor')::int AS mor,
            count(*) FILTER (WHERE kind = 'mor' AND mor_until > $1)::int AS mor_active,
            coalesce(sum(balance_cents), 0)::bigint AS balance_cents
       FROM credit_accounts`,
    [now],
  );
  return rows[0] ?? { credits: 0, mor: 0, mor_active: 0, balance_cents: 0 };
}
