import type { Db, Queryable } from "../../db/client.ts";
import {
  type AccountRow,
  addToAccount,
  type BalanceChange,
  debitBalance,
  ensureAccount,
  findAccountByKeyHash,
  insertLedgerEntry,
} from "../../db/queries/credits.ts";
import {
  commitPendingCharge,
  insertPendingCharge,
  takeOrphanedCharges,
  takePendingCharge,
} from "../../db/queries/pending-charges.ts";
import { DomainError, InvalidInputError, NotFoundError, PaymentRequiredError } from "../../domain/errors.ts";
import { findPrice, PRICE_TABLE, type PriceEntry } from "../../domain/pricing/price-table.ts";
import type { Clock } from "../../lib/clock.ts";
import { centsToUsd } from "../../lib/money.ts";
import { type Charge, type PaymentAttempt, type PaymentMethod, paymentHoldLost } from "../gate.ts";
import { CLIENT_KEY_RULE, clientKeyHash, isClientKey, isInertKey } from "./client-key.ts";

/**
 * Prepaid credits: a balance in USD cents named by a client key (header `x-client-key`). A priced call debits
 * its price before the content is produced (one guarded UPDATE, a ledger row and a `pending_charges` row, in
 * one transaction); answering commits it (the pending row goes), and a call that ends in 404 or 5xx, or whose
 * process dies before answering (payments/orphans.ts), gets the debit back as a `refund` ledger row. Credits
 * never expire.
 */

const BUNDLE_PREFIX = "POST /v1/billing/credits/";

export interface CreditsDeps {
  db: Db;
  now: Clock;
  /** Instance key of this process, recorded on each debit until its call is answered. */
  holder: () => number;
  /** The 402 the configured mode answers (x402 requirements), which a refusal carries so the caller can pay. */
  requirement(attempt: PaymentAttempt): PaymentRequiredError;
}

/** The bundle amounts on sale, in whole USD, from the price table. */
export const BUNDLE_AMOUNTS: readonly string[] = PRICE_TABLE.filter((e) =>
  e.endpoint.startsWith(BUNDLE_PREFIX),
).map((e) => e.endpoint.slice(BUNDLE_PREFIX.length));

/** Balances never pay for balances: bundle purchases go through x402 (or the dev faucet). */
export function isBundleEndpoint(endpoint: string): boolean {
  return endpoint.startsWith(BUNDLE_PREFIX);
}

/** The price-table entry of a bundle, or undefined for an amount that is not sold. */
export function bundleEntry(amount: string): PriceEntry | undefined {
  return BUNDLE_AMOUNTS.includes(amount) ? findPrice(`${BUNDLE_PREFIX}${amount}`) : undefined;
}

export function refillHint(): string {
  const bundles = BUNDLE_AMOUNTS.map((a) => `POST /v1/billing/credits/${a}`).join(", ");
  return (
    `Refill with one of ${bundles} (paid per call with x402) and header x-client-key: <the same key>; ` +
    "check the balance with GET /v1/billing. Or pay this call directly (see GET /v1/pricing)."
  );
}

/**
 * A method refusing credentials it recognised. When the request carries another payment credential, the next
 * method gets its turn (a client that sends a key and an x402 payment is served by the payment); otherwise the
 * 402 says what was wrong and still carries the mode's requirement, so the caller can pay per call instead.
 */
export function refuse(
  deps: Pick<CreditsDeps, "requirement">,
  attempt: PaymentAttempt,
  otherCredential: boolean,
  message: string,
  hint: string,
): undefined {
  if (otherCredential) {
    return undefined;
  }
  const requirement = deps.requirement(attempt);
  throw new PaymentRequiredError(message, hint, requirement.challenge);
}

export function createCreditsMethod(deps: CreditsDeps): PaymentMethod {
  return {
    name: "credits",
    async authorize(attempt) {
      const key = attempt.credentials.clientKey;
      if (key === undefined || isInertKey(key) || isBundleEndpoint(attempt.endpoint)) {
        return undefined;
      }
      const other =
        attempt.credentials.paymentSignature !== undefined || attempt.credentials.xPayment !== undefined;
      if (!isClientKey(key)) {
        return refuse(
          deps,
          attempt,
          other,
          "The x-client-key header is not a valid client key.",
          `A client key is ${CLIENT_KEY_RULE}.`,
        );
      }
      const keyHash = clientKeyHash(key);
      const at = deps.now();
      const amount = { cents: attempt.priceCents, trialCalls: 0 };
      const debit = await deps.db.transaction(async (tx) => {
        const change = await debitBalance(tx, { keyHash, cents: attempt.priceCents, at });
        if (!change) {
          return undefined;
        }
        const ledgerId = await recordPendingDebit(tx, { change, amount, attempt, at, holder: deps.holder() });
        return { ...change, ledgerId };
      });
      if (!debit) {
        const account = await findAccountByKeyHash(deps.db, keyHash);
        const price = `${attempt.endpoint} costs ${centsToUsd(attempt.priceCents)} USD`;
        return refuse(
          deps,
          attempt,
          other,
          account
            ? `${price}; the prepaid balance of this x-client-key is ${centsToUsd(account.balance_cents)} USD.`
            : `${price}; no prepaid account exists for this x-client-key.`,
          refillHint(),
        );
      }
      return refundableCharge(deps, "credits", debit);
    },
  };
}

/**
 * The ledger row of a debit just taken (inside its transaction), and its `pending_charges` row naming this
 * process, which stays until the call is answered. Returns the ledger id.
 */
export async function recordPendingDebit(
  tx: Queryable,
  debit: {
    change: BalanceChange;
    amount: { cents: number; trialCalls: number };
    attempt: PaymentAttempt;
    at: Date;
    holder: number;
  },
): Promise<number> {
  const ledgerId = await insertLedgerEntry(tx, {
    accountId: debit.change.accountId,
    deltaCents: -debit.amount.cents,
    deltaTrialCalls: -debit.amount.trialCalls,
    balanceAfterCents: debit.change.balanceCents,
    reason: "debit",
    endpoint: debit.attempt.endpoint,
    reference: null,
    at: debit.at,
  });
  await insertPendingCharge(tx, {
    ledgerId,
    accountId: debit.change.accountId,
    cents: debit.amount.cents,
    trialCalls: debit.amount.trialCalls,
    endpoint: debit.attempt.endpoint,
    holder: debit.holder,
    at: debit.at,
  });
  return ledgerId;
}

/**
 * A charge already debited and pending: committing keeps it (and fails, serving nothing, if the debit was
 * refunded meanwhile); releasing writes the refund, unless the debit was already refunded.
 */
export function refundableCharge(
  deps: { db: Db; now: Clock },
  method: "credits" | "subscription",
  debit: { ledgerId: number },
): Charge {
  return {
    method,
    async commit() {
      if (!(await commitPendingCharge(deps.db, debit.ledgerId))) {
        throw paymentHoldLost(method === "credits" ? "credit debit" : "subscription debit");
      }
      return {};
    },
    release: () =>
      deps.db.transaction(async (tx) => {
        const pending = await takePendingCharge(tx, debit.ledgerId);
        if (pending) {
          await refund(tx, refundOf(pending, deps.now()));
        }
      }),
  };
}

/**
 * Refunds every debit whose process died before answering (its instance lock is gone), in one transaction;
 * returns how many. Run by every server process (payments/orphans.ts).
 */
export async function refundOrphanedDebits(deps: { db: Db; now: Clock }): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const orphans = await takeOrphanedCharges(tx);
    const at = deps.now();
    for (const pending of orphans) {
      await refund(tx, refundOf(pending, at));
    }
    return orphans.length;
  });
}

function refundOf(
  pending: { ledger_id: number; account_id: number; cents: number; trial_calls: number; endpoint: string },
  at: Date,
) {
  return {
    accountId: pending.account_id,
    cents: pending.cents,
    trialCalls: pending.trial_calls,
    endpoint: pending.endpoint,
    reference: `ledger:${pending.ledger_id}`,
    at,
  };
}

async function refund(
  tx: Queryable,
  refund: {
    accountId: number;
    cents: number;
    trialCalls: number;
    endpoint: string;
    reference: string;
    at: Date;
  },
): Promise<void> {
  const change = await addToAccount(tx, {
    accountId: refund.accountId,
    cents: refund.cents,
    trialCalls: refund.trialCalls,
    at: refund.at,
  });
  await insertLedgerEntry(tx, {
    accountId: refund.accountId,
    deltaCents: refund.cents,
    deltaTrialCalls: refund.trialCalls,
    balanceAfterCents: change.balanceCents,
    reason: "refund",
    endpoint: refund.endpoint,
    reference: refund.reference,
    at: refund.at,
  });
}

/** The state of a credit account as `GET /v1/billing` and a bundle purchase report it. */
export interface Balance {
  kind: "credits" | "mor";
  balance_cents: number;
  balance_usd: string;
  trial_calls: number;
  subscription: { active: boolean; expires_at: string | null };
  created_at: string;
}

export function balanceOf(account: AccountRow, now: Date): Balance {
  return {
    kind: account.kind,
    balance_cents: account.balance_cents,
    balance_usd: centsToUsd(account.balance_cents),
    trial_calls: account.trial_calls,
    subscription: {
      active: account.kind === "mor" && account.mor_until !== null && account.mor_until > now,
      expires_at: account.mor_until?.toISOString() ?? null,
    },
    created_at: account.created_at.toISOString(),
  };
}

/** Checks a client key given to name an account (balance look-up, purchase, checkout). */
export function assertUsableClientKey(key: string): void {
  if (isInertKey(key)) {
    throw new InvalidInputError(
      'header "x-client-key": keys starting lct_ (trial and pro keys) are inert on this deployment.',
      `Choose your own client key (${CLIENT_KEY_RULE}) or get one from POST /v1/mor/checkout.`,
    );
  }
  if (!isClientKey(key)) {
    throw new InvalidInputError(
      'header "x-client-key" is not a valid client key.',
      `Send a client key of ${CLIENT_KEY_RULE}.`,
    );
  }
}

/** `GET /v1/billing`: the balance of the key's account; not_found when the key names none. */
export async function getBalance(deps: { db: Db; now: Clock }, key: string): Promise<Balance> {
  assertUsableClientKey(key);
  const account = await findAccountByKeyHash(deps.db, clientKeyHash(key));
  if (!account) {
    throw new NotFoundError(
      "No prepaid account exists for this x-client-key.",
      `Create it by buying credits: ${BUNDLE_AMOUNTS.map((a) => `POST /v1/billing/credits/${a}`).join(", ")} ` +
        "with the same x-client-key header.",
    );
  }
  return balanceOf(account, deps.now());
}

/**
 * Credits a paid bundle to the key's account, creating the account, in one transaction with its `purchase`
 * ledger row. Called only after the payment for the bundle has been made final.
 */
export async function creditBundle(
  deps: { db: Db; now: Clock },
  purchase: { key: string; entry: PriceEntry; reference: string },
): Promise<Balance> {
  const at = deps.now();
  const account = await deps.db.transaction(async (tx) => {
    const created = await ensureAccount(tx, clientKeyHash(purchase.key), at);
    const change = await addToAccount(tx, {
      accountId: created.id,
      cents: purchase.entry.priceCents,
      trialCalls: 0,
      at,
    });
    await insertLedgerEntry(tx, {
      accountId: created.id,
      deltaCents: purchase.entry.priceCents,
      deltaTrialCalls: 0,
      balanceAfterCents: change.balanceCents,
      reason: "purchase",
      endpoint: purchase.entry.endpoint,
      reference: purchase.reference,
      at,
    });
    return { ...created, balance_cents: change.balanceCents, trial_calls: change.trialCalls, updated_at: at };
  });
  return balanceOf(account, at);
}

/** What a bundle purchase answers with: the account's new balance and what was credited. */
export interface BundlePurchase extends Balance {
  credited_cents: number;
  credited_usd: string;
}

/**
 * Credits a bundle whose payment is final, for REST and MCP alike. The payment is already taken, so a failure
 * here must not read as "try again": it is an internal error telling the caller not to pay twice, and it is
 * logged for the operator to credit by hand.
 */
export async function creditPaidBundle(
  deps: { db: Db; now: Clock },
  purchase: {
    key: string;
    entry: PriceEntry;
    requestId: string;
    log: { error(obj: object, msg: string): void };
  },
): Promise<BundlePurchase> {
  let balance: Balance;
  try {
    balance = await creditBundle(deps, {
      key: purchase.key,
      entry: purchase.entry,
      reference: `request:${purchase.requestId}`,
    });
  } catch (error) {
    purchase.log.error({ err: error, endpoint: purchase.entry.endpoint }, "bundle paid but not credited");
    throw new DomainError(
      "internal",
      "The payment was taken but the credits could not be added.",
      `Report request id ${purchase.requestId} to the operator: the bundle will be credited by hand. Do not pay again.`,
    );
  }
  return {
    ...balance,
    credited_cents: purchase.entry.priceCents,
    credited_usd: centsToUsd(purchase.entry.priceCents),
  };
}
