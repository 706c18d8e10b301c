import { centsToDecimal, centsToUsd, centsToUsdcUnits } from "../../lib/money.ts";
import { isServedBy, PRICE_TABLE, priceUsd } from "./price-table.ts";

export type PaymentsMode = "dev" | "x402";

export interface PricingInput {
  paymentsMode: PaymentsMode;
  /** Routes this process serves (`METHOD /path/:param`); endpoints not served are not offered for sale. */
  servedRoutes: readonly string[];
  subscription: { provider: string; priceMonthlyCents: number };
  /** x402 mode: the real payment terms (network, asset, recipient). */
  x402?: X402Terms;
}

/**
 * This deployment's pricing input, from its configuration, the routes it serves and its x402 terms: what REST's
 * GET /v1/pricing and MCP's get_pricing both answer from.
 */
export function pricingInputOf(deps: {
  config: { PAYMENTS_MODE: PaymentsMode; MOR_PROVIDER: string; MOR_PRICE_MONTHLY_CENTS: number };
  servedRoutes(): readonly string[];
  payments: { x402?: X402Terms | null };
}): PricingInput {
  return {
    paymentsMode: deps.config.PAYMENTS_MODE,
    servedRoutes: deps.servedRoutes(),
    subscription: {
      provider: deps.config.MOR_PROVIDER,
      priceMonthlyCents: deps.config.MOR_PRICE_MONTHLY_CENTS,
    },
    x402: deps.payments.x402 ?? undefined,
  };
}

/** Where and how x402 payments are made (the resolved X402_* settings). */
export interface X402Terms {
  network: string;
  asset: string;
  assetSymbol: string;
  eip712: { name: string; version: string };
  payTo: string;
  maxTimeoutSeconds: number;
  /** x402 v1 name of the network, when v1 has one. */
  v1Network: string | undefined;
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
    /** The checkout route, or null when no subscription is offered here (the route is not served). */
    checkout_endpoint: string | null;
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
    /** x402 mode only (additive to the spec): the exact terms every `accepts[0]` carries. */
    x402?: {
      scheme: "exact";
      network: string;
      asset: string;
      asset_symbol: string;
      asset_decimals: 6;
      eip712_domain: { name: string; version: string };
      pay_to: string;
      max_timeout_seconds: number;
      v1_network: string | null;
    };
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
  const subscriptionServed = isServedBy(CHECKOUT_ENDPOINT, input.servedRoutes);
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
      available: subscriptionServed,
      provider: input.subscription.provider,
      currency: "EUR",
      price_monthly_cents: input.subscription.priceMonthlyCents,
      price_monthly: centsToDecimal(input.subscription.priceMonthlyCents),
      checkout_endpoint: subscriptionServed ? CHECKOUT_ENDPOINT : null,
      mechanics:
        "Checkout opens a hosted payment page of the merchant-of-record provider. After payment the client key " +
        "becomes a subscription key for 30 days and receives one-time credits; send it as X-PAYMENT: <KEY>.",
    },
    payment_flow: {
      protocol: "x402",
      version: 2,
      steps: dev ? devSteps() : x402Steps(input.x402),
      required_header: "PAYMENT-REQUIRED",
      signature_header: "PAYMENT-SIGNATURE",
      header: "X-PAYMENT",
      faucet: dev ? FAUCET_ENDPOINT : null,
      ...(!dev && input.x402 ? { x402: x402Terms(input.x402) } : {}),
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

function x402Terms(terms: X402Terms): NonNullable<Pricing["payment_flow"]["x402"]> {
  return {
    scheme: "exact",
    network: terms.network,
    asset: terms.asset,
    asset_symbol: terms.assetSymbol,
    asset_decimals: 6,
    eip712_domain: { name: terms.eip712.name, version: terms.eip712.version },
    pay_to: terms.payTo,
    max_timeout_seconds: terms.maxTimeoutSeconds,
    v1_network: terms.v1Network ?? null,
  };
}

function x402Steps(terms: X402Terms | undefined): string[] {
  const what = terms
    ? `${terms.assetSymbol} (asset ${terms.asset}) on ${terms.network} to ${terms.payTo}, EIP-712 domain ` +
      `{name: "${terms.eip712.name}", version: "${terms.eip712.version}"}`
    : "USDC to accepts[0].payTo on accepts[0].network";
  const v1 = terms?.v1Network ? ` on network ${terms.v1Network}` : "";
  return [
    "Call a priced endpoint without payment: the answer is HTTP 402 with header PAYMENT-REQUIRED " +
      "(base64 JSON: x402Version 2, resource, accepts); the JSON body repeats accepts with a hint.",
    `Sign an EIP-3009 transferWithAuthorization of ${what} for exactly the endpoint's price in atomic ` +
      `units (6 decimals: 0.02 USD = ${centsToUsdcUnits(2)}), valid for at most ` +
      `${terms?.maxTimeoutSeconds ?? 300} seconds.`,
    "Retry the same request with header PAYMENT-SIGNATURE: <base64 payment payload> " +
      `(x402 v1 clients: X-PAYMENT with a v1 payload${v1}).`,
    "The service verifies the payment with its facilitator, produces the answer, settles, and only then " +
      "sends it, with header PAYMENT-RESPONSE (v1: X-PAYMENT-RESPONSE) and meta.paid true. Each proof is " +
      "accepted once; when nothing can be served (404, error) nothing is settled and the proof stays usable.",
  ];
}
