import type { Queryable } from "../client.ts";
import { LIVE_INSTANCE_KEYS } from "./fleet-locks.ts";

/**
 * Credit and subscription debits whose call has not been answered yet (`pending_charges`, migration 0022).
 * Exactly one of three statements removes a row, and whichever does decides the debit's fate: the answer's
 * commit (kept), the call's release (refunded) or the orphan sweep (refunded: its process died). Each is one
 * DELETE, so two of them can never both act on one debit.
 */

export interface PendingCharge {
  ledgerId: number;
  accountId: number;
  cents: number;
  trialCalls: number;
  endpoint: string;
  /** Instance key of the process that took the debit. */
  holder: number;
  at: Date;
}

export async function insertPendingCharge(db: Queryable, charge: PendingCharge): Promise<void> {
  await db.query(
    `INSERT INTO pending_charges (ledger_id, account_id, cents, trial_calls, endpoint, holder, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      charge.ledgerId,
      charge.accountId,
      charge.cents,
      charge.trialCalls,
      charge.endpoint,
      charge.holder,
      charge.at,
    ],
  );
}

/** The answer is going out: the debit stays. False when it was already refunded (released or swept). */
export async function commitPendingCharge(db: Queryable, ledgerId: number): Promise<boolean> {
  const result = await db.query("DELETE FROM pending_charges WHERE ledger_id = $1", [ledgerId]);
  return result.rowCount === 1;
}

interface PendingRow {
  ledger_id: number;
  account_id: number;
  cents: number;
  trial_calls: number;
  endpoint: string;
}

const RETURNING = "RETURNING ledger_id, account_id, cents, trial_calls, endpoint";

/** Takes the debit back for a refund; undefined when someone else already decided it. */
export async function takePendingCharge(db: Queryable, ledgerId: number): Promise<PendingRow | undefined> {
  const { rows } = await db.query<PendingRow>(
    `DELETE FROM pending_charges WHERE ledger_id = $1 ${RETURNING}`,
    [ledgerId],
  );
  return rows[0];
}

/** Takes back every debit whose process no longer holds its instance lock (it died before answering). */
export async function takeOrphanedCharges(db: Queryable): Promise<PendingRow[]> {
  const { rows } = await db.query<PendingRow>(
    `DELETE FROM pending_charges WHERE holder NOT IN ${LIVE_INSTANCE_KEYS} ${RETURNING}`,
  );
  return rows;
}
