import type { Queryable } from "../client.ts";

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
 * Marks the token used, in one statement, only if it is unused, unexpired and issued for this endpoint.
 * Concurrent requests with the same token race on this UPDATE; exactly one of them gets the row.
 */
export async function consumeDevToken(
  db: Queryable,
  tokenHash: string,
  endpoint: string,
  now: Date,
): Promise<boolean> {
  const result = await db.query(
    `UPDATE dev_tokens SET consumed_at = $3
      WHERE token_hash = $1 AND endpoint = $2 AND consumed_at IS NULL AND expires_at > $3
      RETURNING token_hash`,
    [tokenHash, endpoint, now],
  );
  return result.rowCount === 1;
}

/** Gives a consumed token back (the call it paid for failed on our side or found nothing to serve). */
export async function releaseDevToken(db: Queryable, tokenHash: string): Promise<void> {
  await db.query("UPDATE dev_tokens SET consumed_at = NULL WHERE token_hash = $1", [tokenHash]);
}

export async function findDevToken(db: Queryable, tokenHash: string): Promise<DevTokenRow | undefined> {
  const { rows } = await db.query<DevTokenRow>(
    `SELECT token_hash, endpoint, amount_cents, issued_at, expires_at, consumed_at
       FROM dev_tokens WHERE token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}
