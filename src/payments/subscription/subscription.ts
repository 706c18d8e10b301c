import type { Db } from "../../db/client.ts";
import {
  addToAccount,
  debitBalance,
  debitTrialCall,
  ensureAccount,
  extendSubscription,
  findAccountById,
  findAccountByKeyHash,
  findAccountBySubscription,
  insertLedgerEntry,
} from "../../db/queries/credits.ts";
import { markLeadPaid, setLeadCheckout, upsertNewLead } from "../../db/queries/leads.ts";
import {
  insertWebhookEvent,
  setWebhookOutcome,
  type WebhookOutcome,
} from "../../db/queries/webhook-events.ts";
import { DomainError, InvalidInputError, type PaymentRequiredError } from "../../domain/errors.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import { centsToDecimal, centsToUsd } from "../../lib/money.ts";
import { clientKeyHash, generateClientKey, isClientKey, isInertKey } from "../credits/client-key.ts";
import {
  assertUsableClientKey,
  isBundleEndpoint,
  recordPendingDebit,
  refillHint,
  refundableCharge,
  refuse,
} from "../credits/credits.ts";
import { isDevToken } from "../dev/dev-tokens.ts";
import type { PaymentAttempt, PaymentMethod } from "../gate.ts";
import { type MorProvider, MorProviderError } from "./provider.ts";

/**
 * The monthly subscription sold through the merchant-of-record provider. A checkout stores a lead and an account
 * and returns the account's client key; the provider's signed webhook for the completed payment makes the
 * account kind `mor` for 30 days (from the later of now and its current expiry) and grants one-time credits. The
 * key, sent as `X-PAYMENT`, then pays for calls from the account: credits first, then preserved trial calls.
 */

export const SUBSCRIPTION_DAYS = 30;
export const CHECKOUT_PATH = "/v1/mor/checkout";

export interface SubscriptionSettings {
  provider: MorProvider;
  priceMonthlyCents: number;
  grantCents: number;
}

export interface SubscriptionDeps {
  db: Db;
  now: Clock;
  settings: SubscriptionSettings;
}

export interface CheckoutResult {
  checkout_url: string;
  checkout_id: string;
  client_key: string;
  key_created: boolean;
  provider: string;
  currency: "EUR";
  price_monthly_cents: number;
  price_monthly: string;
  period_days: number;
  grant_cents: number;
  grant_usd: string;
  next: string;
}

export interface WebhookResult {
  received: true;
  duplicate: boolean;
  outcome: WebhookOutcome | null;
}

export interface SubscriptionService {
  provider: string;
  /** Opens a checkout for `email`; the account is the one `clientKey` names (created if needed) or a new one. */
  openCheckout(input: { email: string; clientKey?: string }, log: Logger): Promise<CheckoutResult>;
  /** Verifies and applies one provider webhook. Refusals are `InvalidInputError` and change nothing. */
  handleWebhook(
    rawBody: string,
    header: (name: string) => string | undefined,
    log: Logger,
  ): Promise<WebhookResult>;
}

export function createSubscriptionService(deps: SubscriptionDeps): SubscriptionService {
  const { provider, grantCents, priceMonthlyCents } = deps.settings;
  return {
    provider: provider.name,

    async openCheckout(input, log) {
      const suppliedKey = input.clientKey;
      if (suppliedKey !== undefined) {
        assertUsableClientKey(suppliedKey);
      }
      const key = suppliedKey ?? generateClientKey();
      const at = deps.now();
      const { account, lead } = await deps.db.transaction(async (tx) => {
        const account = await ensureAccount(tx, clientKeyHash(key), at);
        const lead = await upsertNewLead(tx, { email: input.email, accountId: account.id, at });
        return { account, lead };
      });
      let session: { id: string; url: string };
      try {
        session = await provider.createCheckout({
          email: input.email,
          customData: { account_id: String(account.id), lead_id: String(lead.id) },
        });
      } catch (error) {
        if (!(error instanceof MorProviderError)) {
          throw error;
        }
        // The lead stays `new` (someone to contact); the empty account is harmless and reused on retry.
        log.warn({ provider: provider.name, leadId: lead.id, reason: error.message }, "checkout not opened");
        throw new DomainError(
          "internal",
          "The payment provider could not open a checkout.",
          "Retry in a minute; nothing was charged. Meanwhile calls can be paid per call (see GET /v1/pricing).",
        );
      }
      await setLeadCheckout(deps.db, lead.id, session.id);
      log.info({ provider: provider.name, leadId: lead.id, accountId: account.id }, "checkout opened");
      return {
        checkout_url: session.url,
        checkout_id: session.id,
        client_key: key,
        key_created: suppliedKey === undefined,
        provider: provider.name,
        currency: "EUR",
        price_monthly_cents: priceMonthlyCents,
        price_monthly: centsToDecimal(priceMonthlyCents),
        period_days: SUBSCRIPTION_DAYS,
        grant_cents: grantCents,
        grant_usd: centsToUsd(grantCents),
        next:
          "Keep client_key: it is shown once and cannot be recovered. Pay at checkout_url; once the provider " +
          "confirms the payment, send X-PAYMENT: <client_key> on priced calls (or x-client-key for the credits " +
          "alone) and check the account with GET /v1/billing.",
      };
    },

    async handleWebhook(rawBody, header, log) {
      const now = deps.now();
      const verification = provider.verifyWebhook(rawBody, header, now);
      if (!verification.ok) {
        log.warn({ provider: provider.name, reason: verification.reason }, "webhook refused");
        throw new InvalidInputError(
          `Webhook refused: ${verification.reason}.`,
          "Only the payment provider calls this endpoint, with a fresh signature over the exact body.",
        );
      }
      const event = provider.parseEvent(rawBody);
      if (!event) {
        throw new InvalidInputError(
          "Webhook refused: the body is not a provider event.",
          "Send the provider's event JSON unchanged.",
        );
      }
      const result = await deps.db.transaction(async (tx): Promise<WebhookResult> => {
        const stored = await insertWebhookEvent(tx, {
          provider: provider.name,
          eventId: event.id,
          eventType: event.type,
          payload: event.payload,
          at: now,
        });
        if (stored === undefined) {
          return { received: true, duplicate: true, outcome: null };
        }
        const payment = event.payment;
        if (!payment) {
          await setWebhookOutcome(tx, stored, {
            outcome: "ignored",
            accountId: null,
            amountCents: null,
            currency: null,
          });
          return { received: true, duplicate: false, outcome: "ignored" };
        }
        const money = { amountCents: payment.amountCents, currency: payment.currency };
        const account =
          (payment.accountId !== null ? await findAccountById(tx, payment.accountId) : undefined) ??
          (payment.subscriptionId !== null
            ? await findAccountBySubscription(tx, payment.subscriptionId)
            : undefined);
        if (!account) {
          await setWebhookOutcome(tx, stored, { outcome: "unmatched", accountId: null, ...money });
          return { received: true, duplicate: false, outcome: "unmatched" };
        }
        await extendSubscription(tx, {
          accountId: account.id,
          days: SUBSCRIPTION_DAYS,
          at: now,
          subscriptionId: payment.subscriptionId,
        });
        const change = await addToAccount(tx, {
          accountId: account.id,
          cents: grantCents,
          trialCalls: 0,
          at: now,
        });
        await insertLedgerEntry(tx, {
          accountId: account.id,
          deltaCents: grantCents,
          deltaTrialCalls: 0,
          balanceAfterCents: change.balanceCents,
          reason: "subscription_grant",
          endpoint: null,
          reference: `${provider.name}:${payment.transactionId}`,
          at: now,
        });
        await markLeadPaid(tx, { leadId: payment.leadId, accountId: account.id, at: now });
        await setWebhookOutcome(tx, stored, { outcome: "granted", accountId: account.id, ...money });
        return { received: true, duplicate: false, outcome: "granted" };
      });
      if (result.outcome === "unmatched") {
        log.warn({ provider: provider.name, eventId: event.id }, "payment matches no account");
      } else {
        log.info({ provider: provider.name, eventId: event.id, ...result }, "webhook applied");
      }
      return result;
    },
  };
}

export function renewHint(): string {
  return (
    `Renew with POST ${CHECKOUT_PATH} {"email": …} and header x-client-key: <this key>, or refill the credits ` +
    `and send the key as x-client-key. ${refillHint()}`
  );
}

/**
 * `X-PAYMENT: <subscription key>`: debits the account of an active subscription, credits first, then preserved
 * trial calls. Values that are not a key of ours (x402 payloads, dev tokens, unknown keys) are left to the next
 * methods.
 */
export function createSubscriptionMethod(deps: {
  db: Db;
  now: Clock;
  /** Instance key of this process, recorded on each debit until its call is answered. */
  holder: () => number;
  requirement(attempt: PaymentAttempt): PaymentRequiredError;
}): PaymentMethod {
  return {
    name: "subscription",
    async authorize(attempt) {
      const key = attempt.credentials.xPayment;
      if (
        key === undefined ||
        isBundleEndpoint(attempt.endpoint) ||
        isDevToken(key) ||
        isInertKey(key) ||
        !isClientKey(key)
      ) {
        return undefined;
      }
      const keyHash = clientKeyHash(key);
      const account = await findAccountByKeyHash(deps.db, keyHash);
      if (!account) {
        return undefined;
      }
      const other =
        attempt.credentials.clientKey !== undefined || attempt.credentials.paymentSignature !== undefined;
      const now = deps.now();
      if (account.kind !== "mor") {
        return refuse(
          deps,
          attempt,
          other,
          "The X-PAYMENT value names an account without a paid subscription (a prepaid credit key, or a " +
            "checkout not paid yet).",
          "Send prepaid credit keys as header x-client-key: <key>. A key from POST /v1/mor/checkout pays as " +
            "X-PAYMENT once the provider has confirmed the payment (GET /v1/billing then shows kind mor).",
        );
      }
      const cents = attempt.priceCents;
      const debit = await deps.db.transaction(async (tx) => {
        const byCredits = await debitBalance(tx, { keyHash, cents, at: now, onlyActiveMorAt: now });
        const change = byCredits ?? (await debitTrialCall(tx, { keyHash, at: now, activeAt: now }));
        if (!change) {
          return undefined;
        }
        const amount = byCredits ? { cents, trialCalls: 0 } : { cents: 0, trialCalls: 1 };
        const ledgerId = await recordPendingDebit(tx, {
          change,
          amount,
          attempt,
          at: now,
          holder: deps.holder(),
        });
        return { ledgerId };
      });
      if (!debit) {
        const current = await findAccountById(deps.db, account.id);
        const expiry = current?.mor_until ?? null;
        if (expiry === null || expiry <= now) {
          return refuse(
            deps,
            attempt,
            other,
            expiry === null
              ? "The subscription of this key has not been paid yet."
              : `The subscription of this key expired at ${expiry.toISOString()}.`,
            renewHint(),
          );
        }
        return refuse(
          deps,
          attempt,
          other,
          `${attempt.endpoint} costs ${centsToUsd(cents)} USD; the subscription's credits ` +
            `(${centsToUsd(current?.balance_cents ?? 0)} USD) and trial calls are used up.`,
          refillHint(),
        );
      }
      return refundableCharge(deps, "subscription", debit);
    },
  };
}
