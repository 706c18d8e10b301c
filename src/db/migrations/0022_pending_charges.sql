-- Payments in flight, marked with the process that took them, so that a process dying between taking a
-- payment and answering gives it back. Every server process holds a session-level advisory lock on its
-- instance key for its whole life (db/queries/fleet-locks.ts); a payment whose holder's lock is gone was never
-- answered, and the sweep (payments/orphans.ts) undoes it.

-- A credit (or subscription) debit not yet committed: the row goes when the answer is committed, or with the
-- refund when the call is released or its process died.
CREATE TABLE pending_charges (
  ledger_id   bigint PRIMARY KEY REFERENCES credit_ledger (id),
  account_id  bigint NOT NULL REFERENCES credit_accounts (id),
  cents       bigint NOT NULL CHECK (cents >= 0),
  trial_calls integer NOT NULL CHECK (trial_calls >= 0),
  endpoint    text NOT NULL,
  holder      bigint NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX pending_charges_holder_idx ON pending_charges (holder);

-- A dev token consumed by a call not yet answered (null once answered, or never consumed).
ALTER TABLE dev_tokens ADD COLUMN held_by bigint;
CREATE INDEX dev_tokens_held_by_idx ON dev_tokens (held_by) WHERE held_by IS NOT NULL;

-- The process that claimed an x402 proof (claims from before this migration have none and are left alone).
ALTER TABLE payment_proofs ADD COLUMN holder bigint;
CREATE INDEX payment_proofs_claimed_holder_idx ON payment_proofs (holder) WHERE status = 'claimed';
