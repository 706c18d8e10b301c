import type { Queryable } from "../client.ts";
import { LIVE_INSTANCE_KEYS } from "./fleet-locks.ts";

export interface DevTokenRow {
  token_hash: string;
  endpoint: string;
  amount_cents: number;
  issued_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
}

export async function insertDevToken(
  db: Queryable,
  token: { tokenHash: string; endpoint: string; amountCents: number; issuedAt: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO dev_tokens (token_hash, endpoint, amount_cents, issued_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [token.tokenHash, token.endpoint, token.amountCents, token.issuedAt, token.expiresAt],
  );
}

/**
 * Marks the token used, in one statement, only if it is unused, unexpired and issued for this endpoint, and
 * records the process using it (`holder`, its instance key) until the call is answered. Concurrent requests
 * with the same token race on this UPDATE; exactly one of them gets the row.
 */
export async function consumeDevToken(
  db: Queryable,
  token: { tokenHash: string; endpoint: string; now: Date; holder: number },
): Promise<boolean> {
  const result = await db.query(
    `UPDATE dev_tokens SET consumed_at = $3, held_by = $4
      WHERE token_hash = $1 AND endpoint = $2 AND consumed_at IS NULL AND expires_at > $3
      RETURNING token_hash`,
    [token.tokenHash, token.endpoint, token.now, token.holder],
  );
  return result.rowCount === 1;
}

/** The call it paid for is being answered: the token stays used. False when it was already given back. */
export async function commitDevToken(db: Queryable, tokenHash: string, holder: number): Promise<boolean> {
  const result = await db.query(
    `UPDATE dev_tokens SET held_by = NULL
      WHERE token_hash = $1 AND held_by = $2 AND consumed_at IS NOT NULL`,
    [tokenHash, holder],
  );
  return result.rowCount === 1;
}

/** Gives a consumed token back (the call it paid for failed on our side or found nothing to serve). */
export async function releaseDevToken(db: Queryable, tokenHash: string, holder: number): Promise<void> {
  await db.query(
    "UPDATE dev_tokens SET consumed_at = NULL, held_by = NULL WHERE token_hash = $1 AND held_by = $2",
    [tokenHash, holder],
  );
}

/** Gives back every token held by a process that no longer holds its instance lock; returns how many. */
export async function releaseOrphanedDevTokens(db: Queryable): Promise<number> {
  const result = await db.query(
    `UPDATE dev_tokens SET consumed_at = NULL, held_by = NULL
      WHERE held_by IS NOT NULL AND held_by NOT IN ${LIVE_INSTANCE_KEYS}`,
  );
  return result.rowCount;
}

export async function findDevToken(db: Queryable, tokenHash: string): Promise<DevTokenRow | undefined> {
  const { rows } = await db.query<DevTokenRow>(
    `SELECT token_hash, endpoint, amount_cents, issued_at, expires_at, consumed_at
       FROM dev_tokens WHERE token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}
