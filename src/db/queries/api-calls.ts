import type { Queryable } from "../client.ts";

/** One row per priced call that was served and paid; read by operator statistics. */
export async function recordApiCall(
  db: Queryable,
  call: { endpoint: string; method: string; priceCents: number; status: number; requestId: string; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO api_calls (endpoint, method, price_cents, status, request_id, at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [call.endpoint, call.method, call.priceCents, call.status, call.requestId, call.at],
  );
}
