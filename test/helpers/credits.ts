import { createHash } from "node:crypto";
import type { Queryable } from "../../src/db/client.ts";

/** Test-side views of credit accounts (plain SQL: tests may read and seed tables directly). */

export function keyHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export interface AccountState {
  id: number;
  kind: string;
  balance_cents: number;
  trial_calls: number;
  mor_until: Date | null;
  /** Sum of the account's ledger deltas: must always equal the balance. */
  ledger_cents: number;
  ledger_trial_calls: number;
}

export async function accountState(db: Queryable, key: string): Promise<AccountState | undefined> {
  const { rows } = await db.query<AccountState>(
    `SELECT a.id, a.kind, a.balance_cents, a.trial_calls, a.mor_until,
            coalesce((SELECT sum(delta_cents) FROM credit_ledger l WHERE l.account_id = a.id), 0)::bigint
              AS ledger_cents,
            coalesce((SELECT sum(delta_trial_calls) FROM credit_ledger l WHERE l.account_id = a.id), 0)::int
              AS ledger_trial_calls
       FROM credit_accounts a WHERE a.key_hash = $1`,
    [keyHash(key)],
  );
  return rows[0];
}

/**
 * Creates (or tops up) an account the way a purchase would: balance, trial calls and the matching ledger row.
 * `kind: "mor"` with `morUntil` seeds a subscription account.
 */
export async function seedAccount(
  db: Queryable,
  key: string,
  seed: { cents: number; trialCalls?: number; kind?: "credits" | "mor"; morUntil?: Date | null },
): Promise<number> {
  const { rows } = await db.query<{ id: number; balance_cents: number }>(
    `INSERT INTO credit_accounts (key_hash, kind, balance_cents, trial_calls, mor_until)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (key_hash) DO UPDATE
       SET balance_cents = credit_accounts.balance_cents + EXCLUDED.balance_cents,
           trial_calls = credit_accounts.trial_calls + EXCLUDED.trial_calls,
           kind = EXCLUDED.kind, mor_until = EXCLUDED.mor_until
     RETURNING id, balance_cents`,
    [keyHash(key), seed.kind ?? "credits", seed.cents, seed.trialCalls ?? 0, seed.morUntil ?? null],
  );
  const row = rows[0];
  if (!row) {
    throw new Error("seedAccount: no row");
  }
  await db.query(
    `INSERT INTO credit_ledger (account_id, delta_cents, delta_trial_calls, balance_after_cents, reason, reference)
     VALUES ($1, $2, $3, $4, 'purchase', 'test-seed')`,
    [row.id, seed.cents, seed.trialCalls ?? 0, row.balance_cents],
  );
  return row.id;
}
