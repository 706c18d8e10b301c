import type { PaymentRequiredError, PaymentSettlement } from "../domain/errors.ts";
import { FAUCET_ENDPOINT } from "../domain/pricing/get-pricing.ts";
import type { PriceEntry } from "../domain/pricing/price-table.ts";
import { centsToUsd } from "../lib/money.ts";
import { isClientKey } from "../payments/credits/client-key.ts";
import { isDevToken } from "../payments/dev/dev-tokens.ts";
import type { PaymentCredentials } from "../payments/index.ts";
import { decodePaymentHeader } from "../payments/x402/decode.ts";

/**
 * Payment over MCP. The tool arguments (and the request's `_meta`) become the same `PaymentCredentials` the
 * REST headers do, so one gate and one ledger serve both: a token or proof spent here is spent everywhere. An
 * unpaid call is not an error (SPEC.md, MCP): it answers `{payment_required: true, price_usd, how_to_pay}`.
 */

/** The `_meta` key of an x402 payment payload (x402 over MCP) and of its settlement on the result. */
export const X402_PAYMENT_META = "x402/payment";
export const X402_RESPONSE_META = "x402/payment-response";

/**
 * What pays for a call. `_meta["x402/payment"]` (the x402 MCP transport: the payload as a JSON object) wins
 * over `payment_token`. A token goes where its REST twin would: dev tokens, subscription keys and x402 v1
 * payloads in X-PAYMENT, x402 v2 payloads in PAYMENT-SIGNATURE; in dev mode everything goes to X-PAYMENT,
 * where the faucet tokens are checked.
 */
export function credentialsOf(
  mode: "dev" | "x402",
  args: { payment_token?: string | undefined; client_key?: string | undefined },
  meta: Record<string, unknown> | undefined,
): PaymentCredentials {
  const credentials: PaymentCredentials = {};
  if (args.client_key !== undefined) {
    credentials.clientKey = args.client_key;
  }
  const fromMeta = meta?.[X402_PAYMENT_META];
  let token: string | undefined = args.payment_token?.trim();
  if (fromMeta !== undefined && fromMeta !== null) {
    token =
      typeof fromMeta === "string"
        ? fromMeta.trim()
        : Buffer.from(JSON.stringify(fromMeta)).toString("base64");
  }
  if (token === undefined || token === "") {
    return credentials;
  }
  if (mode === "dev" || isDevToken(token) || isClientKey(token) || x402Version(token) === 1) {
    credentials.xPayment = token;
  } else {
    credentials.paymentSignature = token;
  }
  return credentials;
}

function x402Version(token: string): number | undefined {
  const decoded = decodePaymentHeader(token, "payment_token");
  if (decoded.kind === "v1") {
    return 1;
  }
  if (decoded.kind === "v2") {
    return 2;
  }
  return decoded.kind === "invalid" ? decoded.version : undefined;
}

/** Where the caller is told how to pay: the tool to call again, its REST twin, and the public base URL. */
export interface PaymentContext {
  tool: string;
  entry: PriceEntry;
  baseUrl: string;
  /** Whether prepaid credits can pay this tool (never for the credit purchase itself). */
  creditsPay: boolean;
}

/** The unpaid (or refused) call as tool content: the price, what went wrong, and how to pay. */
export function paymentRequiredContent(error: PaymentRequiredError, context: PaymentContext) {
  const { tool, entry, baseUrl } = context;
  const retry = `Call ${tool} again with the same arguments plus`;
  const credits = context.creditsPay
    ? {
        or_prepaid:
          "Or pass client_key: <a prepaid key with credits> to pay from its balance (buy credits with " +
          "billing_purchase_credits; check them with billing_get_balance).",
      }
    : {};
  const x402 = error.challenge.x402;
  const howToPay = x402
    ? {
        method: "x402",
        ...x402.terms,
        retry:
          `Sign an EIP-3009 transferWithAuthorization for accepts[0] (any x402 client), then ${retry} ` +
          `payment_token: <the base64 payment payload, as for header PAYMENT-SIGNATURE>, or send the payload ` +
          `object as params._meta["${X402_PAYMENT_META}"]. Each payment proof pays for one call.`,
        ...credits,
      }
    : {
        method: "dev_faucet",
        faucet: FAUCET_ENDPOINT,
        faucet_url: `${baseUrl}${FAUCET_ENDPOINT.split(" ")[1]}`,
        faucet_body: { endpoint: entry.endpoint },
        endpoint: entry.endpoint,
        retry: `${retry} payment_token: <the token the faucet returned>. Each token pays for one call.`,
        ...credits,
      };
  return {
    payment_required: true as const,
    price_usd: centsToUsd(entry.priceCents),
    message: error.message,
    // The gate's own hint names REST headers; over MCP the way to retry is the tool's arguments.
    hint: howToPay.retry,
    how_to_pay: howToPay,
  };
}

/** The `_meta` of a result that carries a settlement (x402 over MCP). */
export function settlementMeta(
  settlement: PaymentSettlement | undefined,
): Record<string, unknown> | undefined {
  return settlement ? { [X402_RESPONSE_META]: settlement.response } : undefined;
}
