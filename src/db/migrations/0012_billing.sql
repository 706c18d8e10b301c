-- Billing: prepaid credits, the merchant-of-record subscription, leads and operator statistics.

-- The provider's subscription that pays for an account: renewal payments are matched to the account by it when
-- they carry none of our own custom data.
ALTER TABLE credit_accounts ADD COLUMN mor_subscription_id text;
CREATE INDEX credit_accounts_mor_subscription_idx ON credit_accounts (mor_subscription_id)
  WHERE mor_subscription_id IS NOT NULL;

-- What a stored webhook event did (`granted`, `ignored`, `unmatched`), to whom, and the money it reported (in
-- the provider's currency, lowest denomination): the operator's subscription revenue comes from here.
ALTER TABLE webhook_events
  ADD COLUMN outcome      text CHECK (outcome IN ('granted', 'ignored', 'unmatched')),
  ADD COLUMN account_id   bigint REFERENCES credit_accounts (id),
  ADD COLUMN amount_cents bigint CHECK (amount_cents >= 0),
  ADD COLUMN currency     text;

-- A new checkout for an address that already has an open (`new`) lead reuses it.
CREATE INDEX leads_email_idx ON leads (lower(email));
