import type { Queryable } from "../client.ts";
import { LIVE_INSTANCE_KEYS } from "./fleet-locks.ts";

/**
 * x402 payment proofs (`payment_proofs`). A proof is claimed before it is settled; the unique `proof_hash`
 * makes the claim the one place where concurrent uses of the same proof — on any replica — are told apart.
 *
 * Statuses: `claimed` (a request is using it now), `settled` (paid and served: never usable again), `failed`
 * (nothing was taken: the handler found nothing to serve, or settlement failed), which a later request may
 * claim again because the payer still holds an unspent authorisation.
 */

/** A proof about to be used: who pays how much on which network, for which endpoint. */
export interface ProofClaim {
  proofHash: string;
  x402Version: number;
  nonce: string;
  payer: string;
  network: string;
  asset: string;
  /** Atomic units, decimal string. */
  amount: string;
  endpoint: string;
  at: Date;
  /** Instance key of the process claiming it (a claim whose process died is given up by the sweep). */
  holder: number;
}

/**
 * Claims a proof: inserts it, or takes over a `failed` row. Returns false when the proof is already claimed
 * or settled (a replay, or a concurrent request with the same proof that got there first).
 */
export async function claimProof(db: Queryable, claim: ProofClaim): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO payment_proofs
       (proof_hash, x402_version, nonce, payer, network, asset, amount, endpoint, status, claimed_at, holder)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'claimed', $9, $10)
     ON CONFLICT (proof_hash) DO UPDATE
       SET status = 'claimed', x402_version = EXCLUDED.x402_version, endpoint = EXCLUDED.endpoint,
           amount = EXCLUDED.amount, claimed_at = EXCLUDED.claimed_at, tx = NULL, consumed_at = NULL,
           holder = EXCLUDED.holder
       WHERE payment_proofs.status = 'failed'
     RETURNING id`,
    [
      claim.proofHash,
      claim.x402Version,
      claim.nonce,
      claim.payer,
      claim.network,
      claim.asset,
      claim.amount,
      claim.endpoint,
      claim.at,
      claim.holder,
    ],
  );
  return result.rowCount === 1;
}

/** Settlement went through: the proof is spent for good. */
export async function markProofSettled(
  db: Queryable,
  proofHash: string,
  tx: string,
  at: Date,
): Promise<void> {
  await db.query(
    "UPDATE payment_proofs SET status = 'settled', tx = $2, consumed_at = $3 WHERE proof_hash = $1",
    [proofHash, tx, at],
  );
}

/** Nothing was taken (handler failed, or settlement failed): the claim is given up. */
export async function markProofFailed(db: Queryable, proofHash: string): Promise<void> {
  await db.query("UPDATE payment_proofs SET status = 'failed' WHERE proof_hash = $1 AND status = 'claimed'", [
    proofHash,
  ]);
}

/**
 * Gives up the claims of processes that no longer hold their instance lock: they died between claim and
 * answer. Nothing was settled by them unless they died inside the facilitator's `/settle` call itself; either
 * way the payer may present the proof again, and a proof already spent on chain is refused by the facilitator
 * (docs/decisions.md, "A process dying mid-call"). Returns how many.
 */
export async function failOrphanedClaims(db: Queryable): Promise<number> {
  const result = await db.query(
    `UPDATE payment_proofs SET status = 'failed'
      WHERE status = 'claimed' AND holder IS NOT NULL AND holder NOT IN ${LIVE_INSTANCE_KEYS}`,
  );
  return result.rowCount;
}

/** The stored state of a proof (to explain a refusal). */
export interface ProofRow {
  status: "claimed" | "settled" | "failed";
  endpoint: string;
  tx: string | null;
  consumed_at: Date | null;
}

/** The proof's row, if it was ever claimed. */
export async function findProof(db: Queryable, proofHash: string): Promise<ProofRow | undefined> {
  const { rows } = await db.query<ProofRow>(
    "SELECT status, endpoint, tx, consumed_at FROM payment_proofs WHERE proof_hash = $1",
    [proofHash],
  );
  return rows[0];
}
