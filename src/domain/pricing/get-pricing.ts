import { centsToDecimal, centsToUsd } from "../../lib/money.ts";
import { isServedBy, PRICE_TABLE, priceUsd } from "./price-table.ts";

export type PaymentsMode = "dev" | "x402";

export interface PricingInput {
  paymentsMode: PaymentsMode;
  /** Routes this process serves (`METHOD /path/:param`); endpoints not served are not offered for sale. */
  servedRoutes: readonly string[];
  subscription: { provider: string; priceMonthlyCents: number };
}

export interface Pricing {
  currency: "USD";
  payments_mode: PaymentsMode;
  endpoints: { endpoint: string; price_usd: string; free: boolean }[];
  billing: {
    mechanism: "prepaid_credits";
    bundles: { amount_usd: string; endpoint: string }[];
    balance_endpoint: string;
    usage: string;
  };
  subscription: {
    available: boolean;
    provider: string;
    currency: "EUR";
    price_monthly_cents: number;
    price_monthly: string;
    checkout_endpoint: string;
    mechanics: string;
  };
  payment_flow: {
    protocol: "x402";
    version: 2;
    steps: string[];
    required_header: "PAYMENT-REQUIRED";
    signature_header: "PAYMENT-SIGNATURE";
    header: "X-PAYMENT";
    faucet: string | null;
  };
}

const BUNDLE_PREFIX = "POST /v1/billing/credits/";
const CHECKOUT_ENDPOINT = "POST /v1/mor/checkout";
export const FAUCET_ENDPOINT = "POST /v1/dev-faucet";

/**
 * The Pricing resource of the spec, built from the one price table. Only endpoints this process really serves
 * are listed, so a client never pays for, or is told about, a route that would answer 404.
 */
export function getPricing({ input }: { input: PricingInput }): Pricing {
  const served = PRICE_TABLE.filter((entry) => isServedBy(entry.endpoint, input.servedRoutes));
  const dev = input.paymentsMode === "dev";
  return {
    currency: "USD",
    payments_mode: input.paymentsMode,
    endpoints: served.map((entry) => ({
      endpoint: entry.endpoint,
      price_usd: priceUsd(entry),
      free: entry.free,
    })),
    billing: {
      mechanism: "prepaid_credits",
      bundles: served
        .filter((entry) => entry.endpoint.startsWith(BUNDLE_PREFIX))
        .map((entry) => ({ amount_usd: centsToUsd(entry.priceCents), endpoint: entry.endpoint })),
      balance_endpoint: "GET /v1/billing",
      usage:
        "Send header x-client-key: <CLIENT_KEY> on any priced call; its price is debited from the balance. " +
        "Credits never expire; an exhausted balance answers 402 until refilled.",
    },
    subscription: {
      available: isServedBy(CHECKOUT_ENDPOINT, input.servedRoutes),
      provider: input.subscription.provider,
      currency: "EUR",
      price_monthly_cents: input.subscription.priceMonthlyCents,
      price_monthly: centsToDecimal(input.subscription.priceMonthlyCents),
      checkout_endpoint: CHECKOUT_ENDPOINT,
      mechanics:
        "Checkout opens a hosted payment page of the merchant-of-record provider. After payment the client key " +
        "becomes a subscription key for 30 days and receives one-time credits; send it as X-PAYMENT: <KEY>.",
    },
    payment_flow: {
      protocol: "x402",
      version: 2,
      steps: dev ? devSteps() : x402Steps(),
      required_header: "PAYMENT-REQUIRED",
      signature_header: "PAYMENT-SIGNATURE",
      header: "X-PAYMENT",
      faucet: dev ? FAUCET_ENDPOINT : null,
    },
  };
}

function devSteps(): string[] {
  return [
    'Development mode: no real money moves. POST /v1/dev-faucet with {"endpoint": "GET /v1/tenders/:id"} ' +
      "(any priced endpoint name from this list).",
    "The answer holds a single-use token for that endpoint, valid until expires_at.",
    "Call the endpoint with header X-PAYMENT: <token>; the response has meta.paid true and meta.price_usd.",
    "A token is accepted once; request a new one for each call.",
  ];
}

function x402Steps(): string[] {
  return [
    "Call a priced endpoint without payment: the answer is HTTP 402 with header PAYMENT-REQUIRED " +
      "(base64 JSON: x402Version 2, resource, accepts).",
    "Sign an EIP-3009 transferWithAuthorization of USDC for accepts[0].amount to accepts[0].payTo on accepts[0].network.",
    "Retry the same request with header PAYMENT-SIGNATURE: <base64 payment payload> (v1 clients: X-PAYMENT).",
    "The service verifies and settles through its facilitator before serving; each proof is accepted once.",
  ];
}
