-- Money is integers: USD cents for balances, USDC atomic units (as numeric) for x402 amounts. Every balance
-- change is a ledger row written in the same transaction as the balance.

-- Client keys are bearer secrets: only their SHA-256 is stored.
CREATE TABLE credit_accounts (
  id            bigserial PRIMARY KEY,
  key_hash      text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  kind          text NOT NULL DEFAULT 'credits' CHECK (kind IN ('credits', 'mor')),
  balance_cents bigint NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
  trial_calls   integer NOT NULL DEFAULT 0 CHECK (trial_calls >= 0),
  mor_until     timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE credit_ledger (
  id                  bigserial PRIMARY KEY,
  account_id          bigint NOT NULL REFERENCES credit_accounts (id),
  delta_cents         bigint NOT NULL,
  delta_trial_calls   integer NOT NULL DEFAULT 0,
  balance_after_cents bigint NOT NULL CHECK (balance_after_cents >= 0),
  reason              text NOT NULL CHECK (reason IN ('purchase', 'debit', 'refund', 'subscription_grant')),
  endpoint            text,
  reference           text,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_ledger_account_idx ON credit_ledger (account_id, id);

-- x402 payment proofs: claimed (unique hash) before settlement, so a proof is accepted once across replicas.
CREATE TABLE payment_proofs (
  id          bigserial PRIMARY KEY,
  proof_hash  text NOT NULL UNIQUE,
  x402_version smallint,
  nonce       text,
  payer       text,
  network     text,
  asset       text,
  amount      numeric(78, 0),
  endpoint    text NOT NULL,
  status      text NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'settled', 'failed')),
  tx          text,
  claimed_at  timestamptz NOT NULL DEFAULT now(),
  consumed_at timestamptz
);

-- Dev-mode faucet tokens: single use, bound to one endpoint, expiring. Stored hashed like any bearer secret.
CREATE TABLE dev_tokens (
  token_hash   text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  endpoint     text NOT NULL,
  amount_cents integer NOT NULL CHECK (amount_cents >= 0),
  issued_at    timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  consumed_at  timestamptz
);
CREATE INDEX dev_tokens_expires_idx ON dev_tokens (expires_at);

-- Subscription-provider webhooks, idempotent by the provider's event id.
CREATE TABLE webhook_events (
  id                bigserial PRIMARY KEY,
  provider          text NOT NULL,
  provider_event_id text NOT NULL,
  event_type        text NOT NULL,
  payload           jsonb NOT NULL,
  received_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, provider_event_id)
);

-- Demo/subscription requests. Purged 180 days after reaching contacted, used, paid or lost.
CREATE TABLE leads (
  id                bigserial PRIMARY KEY,
  email             text NOT NULL,
  status            text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'contacted', 'used', 'paid', 'lost')),
  status_changed_at timestamptz NOT NULL DEFAULT now(),
  account_id        bigint REFERENCES credit_accounts (id),
  checkout_id       text,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leads_status_idx ON leads (status, status_changed_at);

-- One row per priced call served (for operator stats): never holds a key, only its method and price.
CREATE TABLE api_calls (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  endpoint    text NOT NULL,
  method      text NOT NULL,
  price_cents integer NOT NULL CHECK (price_cents >= 0),
  status      smallint NOT NULL,
  request_id  uuid
);
CREATE INDEX api_calls_at_idx ON api_calls (at);
