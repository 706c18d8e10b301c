import type { FacilitatorClient } from "@x402/core/server";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
  type VerifyResponse,
} from "@x402/core/types";
import type { Db } from "../../db/client.ts";
import { claimProof, findProof, markProofFailed, markProofSettled } from "../../db/queries/payment-proofs.ts";
import type { PaymentRequiredError } from "../../domain/errors.ts";
import type { Clock } from "../../lib/clock.ts";
import { sha256Hex } from "../../lib/ids.ts";
import { centsToUsdcUnits } from "../../lib/money.ts";
import type { Charge, PaymentAttempt, PaymentMethod } from "../gate.ts";
import {
  type ProtocolVersion,
  payHint,
  priceSentence,
  type RequirementsV1,
  requirementsV1,
  requirementsV2,
  x402Challenge,
} from "./challenge.ts";
import { type Authorization, type Decoded, decodePaymentHeader } from "./decode.ts";
import { caip2OfV1Network, type X402Settings } from "./settings.ts";

/**
 * x402 payments (v2 `PAYMENT-SIGNATURE`, v1 `X-PAYMENT`) behind the payment gate:
 *
 * - authorize: decode → match the endpoint's exact requirement (amount, network, asset, recipient, validity
 *   window) → facilitator `/verify` → claim the proof in `payment_proofs` (unique key: a replay, on any
 * replica,
 *   loses here). Nothing is taken yet.
 * - commit (after the content was produced, before it is sent): facilitator `/settle`; on success the proof
 *   is settled and the settlement goes back to the payer (REST: PAYMENT-RESPONSE, v1 X-PAYMENT-RESPONSE; MCP:
 *   `_meta["x402/payment-response"]`); on failure nothing is served.
 * - release (the handler found nothing to serve, or failed): nothing was settled, the claim is given up and
 *   the payer may use the same proof again.
 *
 * The proof key is the EIP-3009 authorisation itself (network, token, payer, nonce), not the header bytes:
 * the token contract accepts a nonce once, so re-encoding or re-wrapping a payload is still the same proof.
 */

/** The facilitator as this module uses it: v1 and v2 payloads go through the same `/verify` and `/settle`. */
export type Facilitator = Pick<FacilitatorClient, "verify" | "settle">;

/** Dependencies of the x402 payment method. */
export interface X402MethodDeps {
  db: Db;
  now: Clock;
  /** Instance key of this process, recorded on each claim (payments/orphans.ts). */
  holder: () => number;
  settings: X402Settings;
  facilitator: Facilitator;
}

/** Facilitator failures that say nothing about the payment (network, timeout, 5xx, malformed answer). */
const RETRY_AFTER_SECONDS = 5;

interface Prepared {
  version: ProtocolVersion;
  raw: Record<string, unknown>;
  requirements: PaymentRequirements | RequirementsV1;
  authorization: Authorization;
  proofHash: string;
}

/** The gate's x402 method (see the module comment for the authorize → commit/release contract). */
export function createX402PaymentMethod(deps: X402MethodDeps): PaymentMethod {
  const { settings } = deps;
  return {
    name: "x402",
    async authorize(attempt) {
      const prepared = prepare(deps, attempt);
      if (!prepared) {
        return undefined;
      }
      const refusal = (version: ProtocolVersion, message: string, hint: string, reason?: string) =>
        x402Challenge(settings, attempt, { version, message, hint, reason });
      const { version, proofHash } = prepared;

      // A proof already spent (or in flight) is refused before bothering the facilitator.
      const known = await findProof(deps.db, proofHash);
      if (known && known.status !== "failed") {
        throw replayed(settings, attempt, version, known.status, known.tx);
      }
      const verdict = await verify(deps.facilitator, prepared);
      if (verdict.kind === "unreachable") {
        throw x402Challenge(settings, attempt, {
          version,
          message:
            "The payment could not be verified: the payment facilitator is unreachable " +
            `(${verdict.detail}).`,
          hint:
            "Nothing was charged and the payment proof is unused: retry the same request with the same " +
            `payment header in ${RETRY_AFTER_SECONDS} seconds.`,
          reason: "facilitator_unavailable",
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      }
      if (!verdict.result.isValid) {
        const reason = verdict.result.invalidReason ?? "invalid_payment";
        const detail = verdict.result.invalidMessage ? ` (${verdict.result.invalidMessage})` : "";
        throw refusal(
          version,
          `The facilitator refused the payment: ${reason}${detail}.`,
          hintForReason(`${reason} ${verdict.result.invalidMessage ?? ""}`, settings, attempt),
          reason,
        );
      }
      const claimed = await claimProof(deps.db, {
        proofHash,
        x402Version: version,
        nonce: prepared.authorization.nonce,
        payer: prepared.authorization.from,
        network: settings.network,
        asset: settings.asset,
        amount: prepared.authorization.value,
        endpoint: attempt.endpoint,
        at: deps.now(),
        holder: deps.holder(),
      });
      if (!claimed) {
        const row = await findProof(deps.db, proofHash);
        throw replayed(settings, attempt, version, row?.status ?? "claimed", row?.tx ?? null);
      }
      return charge(deps, attempt, prepared);
    },
  };
}

/** Decodes and checks the caller's payment against the endpoint's requirement; undefined if not x402. */
function prepare(deps: X402MethodDeps, attempt: PaymentAttempt): Prepared | undefined {
  const { settings } = deps;
  const { paymentSignature, xPayment } = attempt.credentials;
  let decoded: Decoded;
  let header: string;
  if (paymentSignature !== undefined) {
    header = "PAYMENT-SIGNATURE";
    decoded = decodePaymentHeader(paymentSignature, header);
  } else if (xPayment !== undefined) {
    header = "X-PAYMENT";
    decoded = decodePaymentHeader(xPayment, header);
    // X-PAYMENT is shared with subscription keys and dev tokens: only an x402 v1 payload is ours.
    if (
      decoded.kind === "foreign" ||
      decoded.kind === "v2" ||
      (decoded.kind === "invalid" && decoded.version !== 1)
    ) {
      return undefined;
    }
  } else {
    return undefined;
  }
  const fail = (version: ProtocolVersion, message: string, hint: string): PaymentRequiredError =>
    x402Challenge(settings, attempt, { version, message, hint, reason: "invalid_payload" });

  if (decoded.kind === "foreign" || decoded.kind === "invalid") {
    throw fail(header === "X-PAYMENT" ? 1 : 2, decoded.message, decoded.hint);
  }
  if (decoded.kind === "v1" && header === "PAYMENT-SIGNATURE") {
    throw fail(
      1,
      "PAYMENT-SIGNATURE carries an x402 v1 payload.",
      "Send x402 v1 payloads in X-PAYMENT, or sign a v2 payload for accepts[0] of the 402 answer.",
    );
  }
  const hint = payHint(settings, attempt);
  const price = priceSentence(settings, attempt);
  const amount = centsToUsdcUnits(attempt.priceCents);
  let version: ProtocolVersion;
  let requirements: PaymentRequirements | RequirementsV1;
  const authorization = decoded.payload.payload.authorization;
  if (decoded.kind === "v2") {
    version = 2;
    requirements = requirementsV2(settings, attempt);
    const accepted = decoded.payload.accepted;
    if (accepted.scheme !== "exact") {
      throw fail(
        2,
        `Payment scheme "${accepted.scheme}" is not accepted; this service takes scheme "exact".`,
        hint,
      );
    }
    if (accepted.network !== settings.network) {
      throw fail(
        2,
        `The payment is for network ${accepted.network}; this service is paid on ${settings.network}.`,
        hint,
      );
    }
    if (accepted.asset.toLowerCase() !== settings.asset.toLowerCase()) {
      throw fail(
        2,
        `The payment is in asset ${accepted.asset}; ` +
          `this service is paid in ${settings.assetSymbol} (${settings.asset}).`,
        hint,
      );
    }
    const foreign = foreignResource(decoded.payload.resource?.url, attempt);
    if (foreign) {
      throw fail(2, `The payment proof was made for ${foreign}, not for ${attempt.endpoint}.`, hint);
    }
  } else {
    version = 1;
    const v1 = requirementsV1(settings, attempt);
    if (!v1) {
      throw fail(
        2,
        `x402 v1 payments are not possible on ${settings.network}: v1 has no name for this network.`,
        `Use x402 v2: ${hint}`,
      );
    }
    requirements = v1;
    if (decoded.payload.scheme !== "exact") {
      throw fail(
        1,
        `Payment scheme "${decoded.payload.scheme}" is not accepted; this service takes "exact".`,
        hint,
      );
    }
    if (caip2OfV1Network(decoded.payload.network) !== settings.network) {
      throw fail(
        1,
        `The payment is for network ${decoded.payload.network}; ` +
          `this service is paid on ${settings.v1Network}.`,
        hint,
      );
    }
  }
  if (authorization.to.toLowerCase() !== settings.payTo.toLowerCase()) {
    throw fail(
      version,
      `The payment goes to ${authorization.to}, not to this service (${settings.payTo}).`,
      hint,
    );
  }
  if (BigInt(authorization.value) !== BigInt(amount)) {
    throw fail(
      version,
      `The payment authorises ${authorization.value} atomic units; ${price}. ` +
        "A proof pays for one endpoint's exact price.",
      hint,
    );
  }
  const nowSeconds = BigInt(Math.floor(deps.now().getTime() / 1000));
  // The facilitator wants a few seconds of validity left to get the transfer mined.
  if (BigInt(authorization.validBefore) < nowSeconds + 6n) {
    const at = new Date(Number(authorization.validBefore) * 1000).toISOString();
    throw fail(version, `The payment authorisation expired (validBefore ${at}).`, hint);
  }
  if (BigInt(authorization.validAfter) > nowSeconds) {
    throw fail(version, "The payment authorisation is not valid yet (validAfter is in the future).", hint);
  }
  return {
    version,
    raw: decoded.raw,
    requirements,
    authorization,
    proofHash: proofHashOf(settings, authorization),
  };
}

/** The proof's identity: what the token contract itself refuses to accept twice. */
export function proofHashOf(settings: X402Settings, authorization: Authorization): string {
  return sha256Hex(
    [
      "eip3009",
      settings.network,
      settings.asset.toLowerCase(),
      authorization.from.toLowerCase(),
      authorization.nonce.toLowerCase(),
    ].join(":"),
  );
}

/** The path a payload's `resource.url` names when it is not this endpoint (a proof for another route). */
function foreignResource(url: string | undefined, attempt: PaymentAttempt): string | undefined {
  if (url === undefined) {
    return undefined;
  }
  let path: string;
  try {
    path = new URL(url, attempt.resourceUrl).pathname;
  } catch {
    return url;
  }
  const want = (attempt.endpoint.split(" ")[1] ?? "").split("/").filter(Boolean);
  // Compared from the end: behind a proxy, PUBLIC_BASE_URL may put a prefix before /v1/….
  const got = path.split("/").filter(Boolean).slice(-want.length);
  const same =
    got.length === want.length && want.every((segment, i) => segment.startsWith(":") || segment === got[i]);
  return same ? undefined : path;
}

type Verdict = { kind: "answered"; result: VerifyResponse } | { kind: "unreachable"; detail: string };

async function verify(facilitator: Facilitator, prepared: Prepared): Promise<Verdict> {
  try {
    const result = await facilitator.verify(asPayload(prepared), asRequirements(prepared));
    return { kind: "answered", result };
  } catch (error) {
    if (error instanceof VerifyError) {
      return {
        kind: "answered",
        result: {
          isValid: false,
          invalidReason: error.invalidReason ?? "invalid_payment",
          invalidMessage: error.invalidMessage,
        },
      };
    }
    return { kind: "unreachable", detail: errorName(error) };
  }
}

function charge(deps: X402MethodDeps, attempt: PaymentAttempt, prepared: Prepared): Charge {
  const { settings } = deps;
  const { version, proofHash } = prepared;
  return {
    method: "x402",
    async commit() {
      let settlement: SettleResponse;
      try {
        settlement = await deps.facilitator.settle(asPayload(prepared), asRequirements(prepared));
      } catch (error) {
        if (!(error instanceof SettleError)) {
          await markProofFailed(deps.db, proofHash);
          throw x402Challenge(settings, attempt, {
            version,
            message:
              "The payment could not be settled: the payment facilitator is unreachable " +
              `(${errorName(error)}). Nothing was served.`,
            hint:
              "The payment proof was not used here: retry the same request with the same payment header in " +
              `${RETRY_AFTER_SECONDS} seconds.`,
            reason: "facilitator_unavailable",
            retryAfterSeconds: RETRY_AFTER_SECONDS,
          });
        }
        settlement = {
          success: false,
          errorReason: error.errorReason ?? "settlement_failed",
          errorMessage: error.errorMessage,
          payer: error.payer,
          transaction: error.transaction ?? "",
          network: settings.network,
        };
      }
      if (!settlement.success) {
        await markProofFailed(deps.db, proofHash);
        const reason = settlement.errorReason ?? "settlement_failed";
        const detail = settlement.errorMessage ? ` (${settlement.errorMessage})` : "";
        throw x402Challenge(settings, attempt, {
          version,
          message:
            `The payment could not be settled: ${reason}${detail}. ` +
            "Nothing was served and nothing was charged.",
          hint: hintForReason(`${reason} ${settlement.errorMessage ?? ""}`, settings, attempt),
          reason,
          settlement,
        });
      }
      try {
        await markProofSettled(deps.db, proofHash, settlement.transaction, deps.now());
      } catch {
        // The money has moved, so the content is served. The row stays `claimed`, which still refuses
        // replays.
      }
      return {
        settlement: { x402Version: version, response: settlement as unknown as Record<string, unknown> },
      };
    },
    async release() {
      await markProofFailed(deps.db, proofHash);
    },
  };
}

function replayed(
  settings: X402Settings,
  attempt: PaymentAttempt,
  version: ProtocolVersion,
  status: string,
  tx: string | null,
): PaymentRequiredError {
  const message =
    status === "settled"
      ? `This payment proof has already been used${tx ? ` (settled in transaction ${tx})` : ""}; ` +
        "proofs are single-use."
      : "This payment proof is being used by another request; proofs are single-use.";
  return x402Challenge(settings, attempt, {
    version,
    message,
    hint: `Sign a new payment with a fresh nonce. ${payHint(settings, attempt)}`,
    reason: "proof_already_used",
  });
}

/** A hint for a facilitator's reason code (opaque strings: matched loosely, with a generic fallback). */
function hintForReason(reason: string, settings: X402Settings, attempt: PaymentAttempt): string {
  const pay = payHint(settings, attempt);
  if (/used|nonce/i.test(reason)) {
    return `This authorisation has already been spent. Sign a new payment with a fresh nonce. ${pay}`;
  }
  if (/signature/i.test(reason)) {
    return (
      `Sign the EIP-712 TransferWithAuthorization with domain {name: "${settings.eip712.name}", ` +
      `version: "${settings.eip712.version}", chainId: ${settings.chainId}, ` +
      `verifyingContract: ${settings.asset}}. ${pay}`
    );
  }
  if (/insufficient|balance|funds/i.test(reason)) {
    return `The paying address does not hold enough ${settings.assetSymbol}; fund it, then retry. ${pay}`;
  }
  if (/valid_before|valid_after|expired/i.test(reason)) {
    return `The authorisation's validity window is wrong; sign a new one valid from now. ${pay}`;
  }
  return pay;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : "unknown error";
}

// The facilitator wire format carries v1 and v2 objects alike (`x402Version` decides); the client's types are
// v2-only, so v1 objects cross this boundary under the v2 type.
function asPayload(prepared: Prepared): PaymentPayload {
  return prepared.raw as unknown as PaymentPayload;
}

function asRequirements(prepared: Prepared): PaymentRequirements {
  return prepared.requirements as unknown as PaymentRequirements;
}
