import type { Db, Queryable } from "../db/client.ts";
import { recordApiCall } from "../db/queries/api-calls.ts";
import { PaymentRequiredError } from "../domain/errors.ts";
import type { PaymentsMode } from "../domain/pricing/get-pricing.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { centsToUsd } from "../lib/money.ts";
import {
  type Balance,
  type BundlePurchase,
  createCreditsMethod,
  creditPaidBundle,
  getBalance,
  isBundleEndpoint,
} from "./credits/credits.ts";
import { createDataGuard } from "./data-loaded.ts";
import { withDevChallenge } from "./dev/challenge.ts";
import { createDevPaymentMethod, faucetHint, type IssuedDevToken, issueDevToken } from "./dev/dev-tokens.ts";
import {
  createPaymentGate,
  type PaidResult,
  type PaymentAttempt,
  type PaymentMethod,
  runPaid,
} from "./gate.ts";
import {
  createSubscriptionMethod,
  createSubscriptionService,
  type SubscriptionService,
  type SubscriptionSettings,
} from "./subscription/subscription.ts";
import { createX402, type Facilitator, type X402Settings } from "./x402/index.ts";

export type { PaidResult, PaymentAttempt, PaymentCredentials } from "./gate.ts";

/** Everything the surfaces (REST, MCP) need from payments, built once from configuration. */
export interface Payments {
  mode: PaymentsMode;
  /** Authorises the attempt, produces the content, commits the charge and records the call. */
  charge<T>(attempt: PaymentAttempt, requestId: string, produce: () => Promise<T>): Promise<PaidResult<T>>;
  /** Dev mode only: a single-use token for one priced endpoint. */
  issueDevToken(endpoint: string): Promise<IssuedDevToken>;
  /** Prepaid credit accounts named by client keys. */
  credits: {
    balance(key: string): Promise<Balance>;
    /** Credits a bundle whose payment has been made final (`POST /v1/billing/credits/:amount`, MCP purchase). */
    creditPaidBundle(purchase: Parameters<typeof creditPaidBundle>[1]): Promise<BundlePurchase>;
  };
  /** The merchant-of-record subscription; null when no provider is configured. */
  subscription: SubscriptionService | null;
  /** x402 mode: where and how calls are paid (network, asset, payTo); null in dev mode. */
  x402: X402Settings | null;
}

export interface PaymentsDeps {
  db: Db;
  now: Clock;
  mode: PaymentsMode;
  devTokenTtlSeconds: number;
  /** The subscription provider and terms; null or absent = no subscription offered. */
  subscription?: SubscriptionSettings | null;
  /** x402 mode: the resolved X402_* settings, and a facilitator replacing X402_FACILITATOR_URL (tests). */
  x402?: { settings: X402Settings; facilitator?: Facilitator };
  /**
   * The instance key of this process (fleet/instance.ts), recorded on every payment until its call is
   * answered, so that the payments of a process that died are given back (payments/orphans.ts). Default 0: a
   * key no process holds (in-process tests, which run no sweep).
   */
  holder?: () => number;
  /** Where a failure to record a served call is reported. */
  log?: Logger;
  /**
   * Where the served data is read (the read replica when DATABASE_READ_URL is set; default `db`): the "is any
   * data loaded" check asks the database the answer would come from.
   */
  dataDb?: Queryable;
}

export function createPayments(deps: PaymentsDeps): Payments {
  const holder = deps.holder ?? (() => 0);
  const x402 =
    deps.mode === "x402" && deps.x402
      ? createX402({ db: deps.db, now: deps.now, holder, ...deps.x402 })
      : undefined;
  const requirement = (attempt: PaymentAttempt) =>
    x402 ? x402.requirement(attempt) : requirementFor(deps.mode, attempt);
  // Gate order: subscription key → prepaid credits → (x402) → dev token.
  const methods: PaymentMethod[] = [
    createSubscriptionMethod({ db: deps.db, now: deps.now, holder, requirement }),
    createCreditsMethod({ db: deps.db, now: deps.now, holder, requirement }),
    ...(x402 ? [x402.method] : []),
    ...(deps.mode === "dev" ? [createDevPaymentMethod({ db: deps.db, now: deps.now, holder })] : []),
  ];
  const gate = createPaymentGate({ methods, requirement });
  const dataGuard = createDataGuard({ db: deps.dataDb ?? deps.db, now: deps.now });
  return {
    mode: deps.mode,
    async charge<T>(attempt: PaymentAttempt, requestId: string, produce: () => Promise<T>) {
      // Before the gate: on an empty database nothing is charged and no token or proof is consumed.
      if (!isBundleEndpoint(attempt.endpoint)) {
        await dataGuard.assertLoaded(attempt.endpoint);
      }
      let result: PaidResult<T>;
      try {
        result = await runPaid(gate, attempt, produce);
      } catch (error) {
        // Dev mode answers in x402's shape too (a dev-faucet accepts entry), whichever method refused.
        if (deps.mode === "dev" && error instanceof PaymentRequiredError && !error.challenge.dev) {
          throw withDevChallenge(error, attempt, deps.devTokenTtlSeconds);
        }
        throw error;
      }
      // The payment is final at this point: failing to write the statistics row must not turn a paid answer
      // into an error (the caller would have paid for nothing). It is logged instead.
      await recordApiCall(deps.db, {
        endpoint: attempt.endpoint,
        method: result.method,
        priceCents: attempt.priceCents,
        status: 200,
        requestId,
        at: deps.now(),
      }).catch((error: unknown) => {
        deps.log?.error(
          { err: error, requestId, endpoint: attempt.endpoint },
          "could not record a paid call",
        );
      });
      return result;
    },
    issueDevToken(endpoint) {
      if (deps.mode !== "dev") {
        throw new Error("dev tokens exist only in PAYMENTS_MODE=dev");
      }
      return issueDevToken({ db: deps.db, now: deps.now, ttlSeconds: deps.devTokenTtlSeconds }, endpoint);
    },
    credits: {
      balance: (key) => getBalance(deps, key),
      creditPaidBundle: (purchase) => creditPaidBundle(deps, purchase),
    },
    subscription: deps.subscription
      ? createSubscriptionService({ db: deps.db, now: deps.now, settings: deps.subscription })
      : null,
    x402: x402 && deps.x402 ? deps.x402.settings : null,
  };
}

function requirementFor(mode: PaymentsMode, attempt: PaymentAttempt): PaymentRequiredError {
  const price = `${attempt.endpoint} costs ${centsToUsd(attempt.priceCents)} USD per call`;
  if (mode === "dev") {
    const sent = attempt.credentials.xPayment !== undefined;
    return new PaymentRequiredError(
      sent
        ? `${price}; the X-PAYMENT value is not a token issued by this service.`
        : `${price}; no payment was sent.`,
      faucetHint(attempt.endpoint),
    );
  }
  // PAYMENTS_MODE=x402 without resolved X402_* settings (start-up resolves them, so only a miswired caller).
  return new PaymentRequiredError(
    `${price}; this deployment runs PAYMENTS_MODE=x402 but has no x402 facilitator configured.`,
    "Payment is not possible on this deployment yet; see GET /v1/pricing and try again later.",
  );
}
