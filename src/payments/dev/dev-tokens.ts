import type { Db } from "../../db/client.ts";
import {
  commitDevToken,
  consumeDevToken,
  findDevToken,
  insertDevToken,
  releaseDevToken,
} from "../../db/queries/dev-tokens.ts";
import { InvalidInputError, PaymentRequiredError } from "../../domain/errors.ts";
import { FAUCET_ENDPOINT } from "../../domain/pricing/get-pricing.ts";
import { findPrice, PRICE_TABLE } from "../../domain/pricing/price-table.ts";
import type { Clock } from "../../lib/clock.ts";
import { randomSecret, sha256Hex } from "../../lib/ids.ts";
import { centsToUsd } from "../../lib/money.ts";
import { type PaymentAttempt, type PaymentMethod, paymentHoldLost } from "../gate.ts";

/**
 * Development payments: `POST /v1/dev-faucet` hands out a token for one priced endpoint; the token pays for one
 * call to that endpoint when sent as `X-PAYMENT`. Tokens live in the database (hashed), so they work across
 * replicas and restarts, are single-use and expire. No money moves; this mode exists so that a fresh checkout
 * can exercise every paid route offline.
 */

const TOKEN_PREFIX = "dev";

export interface IssuedDevToken {
  token: string;
  proof: string;
  endpoint: string;
  amount: string;
  expires_at: string;
}

export function faucetHint(endpoint: string): string {
  return `Get a token with POST ${FAUCET_ENDPOINT.split(" ")[1]} and body {"endpoint": "${endpoint}"}, then retry with header X-PAYMENT: <token>. Each token pays for one call.`;
}

export async function issueDevToken(
  deps: { db: Db; now: Clock; ttlSeconds: number },
  endpoint: string,
): Promise<IssuedDevToken> {
  const entry = findPrice(endpoint);
  if (!entry || entry.free) {
    const priced = PRICE_TABLE.filter((e) => !e.free).map((e) => e.endpoint);
    throw new InvalidInputError(
      `endpoint: "${endpoint}" is not a priced endpoint`,
      `Use one of the priced endpoint names exactly as GET /v1/pricing lists them: ${priced.join(", ")}.`,
    );
  }
  const token = randomSecret(TOKEN_PREFIX);
  const proof = sha256Hex(token);
  const issuedAt = deps.now();
  const expiresAt = new Date(issuedAt.getTime() + deps.ttlSeconds * 1000);
  await insertDevToken(deps.db, {
    tokenHash: proof,
    endpoint: entry.endpoint,
    amountCents: entry.priceCents,
    issuedAt,
    expiresAt,
  });
  return {
    token,
    proof,
    endpoint: entry.endpoint,
    amount: centsToUsd(entry.priceCents),
    expires_at: expiresAt.toISOString(),
  };
}

export function isDevToken(value: string | undefined): value is string {
  return value?.startsWith(`${TOKEN_PREFIX}_`) === true;
}

export function createDevPaymentMethod(deps: { db: Db; now: Clock; holder: () => number }): PaymentMethod {
  return {
    name: "dev",
    async authorize(attempt) {
      const token = attempt.credentials.xPayment;
      if (!isDevToken(token)) {
        return undefined;
      }
      const tokenHash = sha256Hex(token);
      const now = deps.now();
      const holder = deps.holder();
      if (!(await consumeDevToken(deps.db, { tokenHash, endpoint: attempt.endpoint, now, holder }))) {
        throw await explainRefusal(deps.db, tokenHash, attempt, now);
      }
      return {
        method: "dev",
        async commit() {
          if (!(await commitDevToken(deps.db, tokenHash, holder))) {
            throw paymentHoldLost("dev token");
          }
          return {};
        },
        release: () => releaseDevToken(deps.db, tokenHash, holder),
      };
    },
  };
}

/** Says precisely why a dev token was refused, so the caller knows whether to fetch a new one or fix the call. */
async function explainRefusal(
  db: Db,
  tokenHash: string,
  attempt: PaymentAttempt,
  now: Date,
): Promise<PaymentRequiredError> {
  const row = await findDevToken(db, tokenHash);
  const hint = faucetHint(attempt.endpoint);
  if (!row) {
    return new PaymentRequiredError("The X-PAYMENT token is unknown to this service.", hint);
  }
  if (row.endpoint !== attempt.endpoint) {
    return new PaymentRequiredError(
      `The X-PAYMENT token was issued for "${row.endpoint}", not for "${attempt.endpoint}".`,
      hint,
    );
  }
  if (row.consumed_at) {
    return new PaymentRequiredError(
      "The X-PAYMENT token has already been used; tokens are single-use.",
      hint,
    );
  }
  if (row.expires_at <= now) {
    return new PaymentRequiredError(`The X-PAYMENT token expired at ${row.expires_at.toISOString()}.`, hint);
  }
  // Lost a race with a concurrent request using the same token.
  return new PaymentRequiredError("The X-PAYMENT token has already been used; tokens are single-use.", hint);
}
