import type { Queryable } from "../client.ts";

/** Provider webhooks, stored once per (provider, provider event id): the store is what makes them idempotent. */

/**
 * Stores the event unless it was stored before. Returns the new row id, or undefined for a replay (a concurrent
 * delivery of the same event waits on the unique index and then sees the first one's row).
 */
export async function insertWebhookEvent(
  db: Queryable,
  event: { provider: string; eventId: string; eventType: string; payload: unknown; at: Date },
): Promise<number | undefined> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO webhook_events (provider, provider_event_id, event_type, payload, received_at)
     VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (provider, provider_event_id) DO NOTHING
     RETURNING id`,
    [event.provider, event.eventId, event.eventType, JSON.stringify(event.payload), event.at],
  );
  return rows[0]?.id;
}

export type WebhookOutcome = "granted" | "ignored" | "unmatched";

/** Records what the event did. */
export async function setWebhookOutcome(
  db: Queryable,
  id: number,
  outcome: {
    outcome: WebhookOutcome;
    accountId: number | null;
    amountCents: number | null;
    currency: string | null;
  },
): Promise<void> {
  await db.query(
    "UPDATE webhook_events SET outcome = $2, account_id = $3, amount_cents = $4, currency = $5 WHERE id = $1",
    [id, outcome.outcome, outcome.accountId, outcome.amountCents, outcome.currency],
  );
}
