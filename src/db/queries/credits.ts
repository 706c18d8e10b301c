import type { Queryable } from "../client.ts";

/**
 * Credit accounts and their ledger. Accounts are found by the SHA-256 of their client key (the key itself is
 * never stored). Every balance or trial-call change is one UPDATE guarded in SQL (so no interleaving can take a
 * balance below zero) plus one `credit_ledger` row, and callers run the pair in one transaction.
 */

export type AccountKind = "credits" | "mor";
export type LedgerReason = "purchase" | "debit" | "refund" | "subscription_grant";

export interface AccountRow {
  id: number;
  kind: AccountKind;
  balance_cents: number;
  trial_calls: number;
  mor_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const ACCOUNT_COLUMNS = "id, kind, balance_cents, trial_calls, mor_until, created_at, updated_at";

export async function findAccountByKeyHash(db: Queryable, keyHash: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM credit_accounts WHERE key_hash = $1`,
    [keyHash],
  );
  return rows[0];
}

export async function findAccountById(db: Queryable, id: number): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM credit_accounts WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** The account paid by a provider subscription (most recently updated first, should two ever share it). */
export async function findAccountBySubscription(
  db: Queryable,
  subscriptionId: string,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM credit_accounts WHERE mor_subscription_id = $1
      ORDER BY updated_at DESC, id DESC LIMIT 1`,
    [subscriptionId],
  );
  return rows[0];
}

/** The account of a key hash, created (kind `credits`, empty) when absent. Safe under concurrent calls. */
export async function ensureAccount(db: Queryable, keyHash: string, at: Date): Promise<AccountRow> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO credit_accounts (key_hash, created_at, updated_at) VALUES ($1, $2, $2)
     ON CONFLICT (key_hash) DO UPDATE SET key_hash = EXCLUDED.key_hash
     RETURNING ${ACCOUNT_COLUMNS}`,
    [keyHash, at],
  );
  const row = rows[0];
  if (!row) {
    throw new Error("upsert into credit_accounts returned no row");
  }
  return row;
}

export interface BalanceChange {
  accountId: number;
  balanceCents: number;
  trialCalls: number;
}

/**
 * Takes `cents` from the balance only if the balance covers it. Concurrent debits of one account queue on the
 * row lock and re-check the condition against the committed balance, so exactly as many succeed as the balance
 * pays for. `onlyActiveMorAt` restricts the debit to a subscription account active at that instant.
 */
export async function debitBalance(
  db: Queryable,
  debit: { keyHash: string; cents: number; at: Date; onlyActiveMorAt?: Date },
): Promise<BalanceChange | undefined> {
  const { rows } = await db.query<{ id: number; balance_cents: number; trial_calls: number }>(
    `UPDATE credit_accounts SET balance_cents = balance_cents - $2, updated_at = $3
      WHERE key_hash = $1 AND balance_cents >= $2
        AND ($4::timestamptz IS NULL OR (kind = 'mor' AND mor_until > $4::timestamptz))
      RETURNING id, balance_cents, trial_calls`,
    [debit.keyHash, debit.cents, debit.at, debit.onlyActiveMorAt ?? null],
  );
  const row = rows[0];
  return row && { accountId: row.id, balanceCents: row.balance_cents, trialCalls: row.trial_calls };
}

/** Takes one preserved trial call from an active subscription account, if it has any left. */
export async function debitTrialCall(
  db: Queryable,
  debit: { keyHash: string; at: Date; activeAt: Date },
): Promise<BalanceChange | undefined> {
  const { rows } = await db.query<{ id: number; balance_cents: number; trial_calls: number }>(
    `UPDATE credit_accounts SET trial_calls = trial_calls - 1, updated_at = $2
      WHERE key_hash = $1 AND trial_calls > 0 AND kind = 'mor' AND mor_until > $3
      RETURNING id, balance_cents, trial_calls`,
    [debit.keyHash, debit.at, debit.activeAt],
  );
  const row = rows[0];
  return row && { accountId: row.id, balanceCents: row.balance_cents, trialCalls: row.trial_calls };
}

/** Adds cents and trial calls to an account (purchases, refunds, grants). */
export async function addToAccount(
  db: Queryable,
  change: { accountId: number; cents: number; trialCalls: number; at: Date },
): Promise<BalanceChange> {
  const { rows } = await db.query<{ id: number; balance_cents: number; trial_calls: number }>(
    `UPDATE credit_accounts SET balance_cents = balance_cents + $2, trial_calls = trial_calls + $3, updated_at = $4
      WHERE id = $1
      RETURNING id, balance_cents, trial_calls`,
    [change.accountId, change.cents, change.trialCalls, change.at],
  );
  const row = rows[0];
  if (!row) {
    throw new Error(`credit account ${change.accountId} does not exist`);
  }
  return { accountId: row.id, balanceCents: row.balance_cents, trialCalls: row.trial_calls };
}

/**
 * Makes the account a subscription account until 30 days (`days`) after the later of `at` and its current
 * expiry, and remembers the provider subscription that paid for it.
 */
export async function extendSubscription(
  db: Queryable,
  change: { accountId: number; days: number; at: Date; subscriptionId: string | null },
): Promise<{ morUntil: Date }> {
  const { rows } = await db.query<{ mor_until: Date }>(
    `UPDATE credit_accounts
        SET kind = 'mor',
            mor_until = GREATEST(COALESCE(mor_until, $3::timestamptz), $3::timestamptz) + make_interval(days => $2),
            mor_subscription_id = COALESCE($4, mor_subscription_id),
            updated_at = $3
      WHERE id = $1
      RETURNING mor_until`,
    [change.accountId, change.days, change.at, change.subscriptionId],
  );
  const row = rows[0];
  if (!row) {
    throw new Error(`credit account ${change.accountId} does not exist`);
  }
  return { morUntil: row.mor_until };
}

export interface LedgerEntry {
  accountId: number;
  deltaCents: number;
  deltaTrialCalls: number;
  balanceAfterCents: number;
  reason: LedgerReason;
  endpoint: string | null;
  reference: string | null;
  at: Date;
}

/** Appends one ledger row; returns its id (refunds reference the debit they undo). */
export async function insertLedgerEntry(db: Queryable, entry: LedgerEntry): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO credit_ledger (account_id, delta_cents, delta_trial_calls, balance_after_cents, reason, endpoint,
                                reference, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING id`,
    [
      entry.accountId,
      entry.deltaCents,
      entry.deltaTrialCalls,
      entry.balanceAfterCents,
      entry.reason,
      entry.endpoint,
      entry.reference,
      entry.at,
    ],
  );
  const id = rows[0]?.id;
  if (id === undefined) {
    throw new Error("insert into credit_ledger returned no id");
  }
  return id;
}
