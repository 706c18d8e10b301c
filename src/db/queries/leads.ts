import type { Queryable } from "../client.ts";

/** Leads: people who asked for a subscription checkout. Their e-mail is the only personal data we hold. */

export const LEAD_STATUSES = ["new", "contacted", "used", "paid", "lost"] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export interface LeadRow {
  id: number;
  email: string;
  status: LeadStatus;
  status_changed_at: Date;
  account_id: number | null;
  checkout_id: string | null;
  created_at: Date;
}

const LEAD_COLUMNS = "id, email, status, status_changed_at, account_id, checkout_id, created_at";

/**
 * Records a checkout request: the open (`new`) lead of the same address (case-insensitive) is reused and
 * pointed at the account, otherwise a new lead is inserted.
 */
export async function upsertNewLead(
  db: Queryable,
  lead: { email: string; accountId: number; at: Date },
): Promise<LeadRow> {
  const { rows: open } = await db.query<LeadRow>(
    `UPDATE leads SET account_id = $2
      WHERE id = (SELECT id FROM leads WHERE lower(email) = lower($1) AND status = 'new'
                   ORDER BY created_at DESC, id DESC LIMIT 1)
      RETURNING ${LEAD_COLUMNS}`,
    [lead.email, lead.accountId],
  );
  if (open[0]) {
    return open[0];
  }
  const { rows } = await db.query<LeadRow>(
    `INSERT INTO leads (email, status, status_changed_at, account_id, created_at) VALUES ($1, 'new', $3, $2, $3)
     RETURNING ${LEAD_COLUMNS}`,
    [lead.email, lead.accountId, lead.at],
  );
  const row = rows[0];
  if (!row) {
    throw new Error("insert into leads returned no row");
  }
  return row;
}

export async function setLeadCheckout(db: Queryable, leadId: number, checkoutId: string): Promise<void> {
  await db.query("UPDATE leads SET checkout_id = $2 WHERE id = $1", [leadId, checkoutId]);
}

/**
 * Moves a lead to `status`. The retention clock (`status_changed_at`) restarts only when the status really
 * changes. Undefined when there is no such lead.
 */
export async function updateLeadStatus(
  db: Queryable,
  change: { id: number; status: LeadStatus; at: Date },
): Promise<LeadRow | undefined> {
  const { rows } = await db.query<LeadRow>(
    `UPDATE leads
        SET status_changed_at = CASE WHEN status = $2 THEN status_changed_at ELSE $3::timestamptz END,
            status = $2
      WHERE id = $1
      RETURNING ${LEAD_COLUMNS}`,
    [change.id, change.status, change.at],
  );
  return rows[0];
}

/**
 * Marks as `paid` the lead a payment belongs to: the one named, else the account's most recent lead that is not
 * paid yet. Returns the lead id, or null when the payment matches no lead.
 */
export async function markLeadPaid(
  db: Queryable,
  payment: { leadId: number | null; accountId: number; at: Date },
): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE leads
        SET status_changed_at = CASE WHEN status = 'paid' THEN status_changed_at ELSE $3::timestamptz END,
            status = 'paid'
      WHERE id = COALESCE(
              (SELECT id FROM leads WHERE id = $1::bigint AND account_id = $2),
              (SELECT id FROM leads WHERE account_id = $2 AND status <> 'paid'
                ORDER BY created_at DESC, id DESC LIMIT 1))
      RETURNING id`,
    [payment.leadId, payment.accountId, payment.at],
  );
  return rows[0]?.id ?? null;
}

/**
 * Deletes the leads whose status is past `new` and has not changed since `before`. `new` leads are kept.
 * Returns how many were removed.
 */
export async function purgeLeadsBefore(db: Queryable, before: Date): Promise<number> {
  const result = await db.query(
    "DELETE FROM leads WHERE status <> 'new' AND status_changed_at <= $1 RETURNING id",
    [before],
  );
  return result.rowCount;
}

export async function countLeadsByStatus(db: Queryable): Promise<Record<LeadStatus, number>> {
  const { rows } = await db.query<{ status: LeadStatus; n: number }>(
    "SELECT status, count(*)::int AS n FROM leads GROUP BY status",
  );
  const counts = Object.fromEntries(LEAD_STATUSES.map((status) => [status, 0])) as Record<LeadStatus, number>;
  for (const row of rows) {
    counts[row.status] = row.n;
  }
  return counts;
}
