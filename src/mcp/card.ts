import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { centsToUsd } from "../lib/money.ts";
import { BUNDLE_AMOUNTS, bundleEntry } from "../payments/credits/credits.ts";
import { SERVER_NAME, SERVER_VERSION, toolListing } from "./server.ts";
import { listTools, type Tool, toolPriceUsd } from "./tools.ts";

/**
 * The static server card at `/.well-known/mcp/server-card.json`. The card format is still a draft (SEP-2127,
 * `modelcontextprotocol/experimental-ext-server-card`), so the card carries the draft's fields (`$schema`,
 * `name`, `version`, `description`, `title`, `remotes`) and, as the draft's open objects allow, the older
 * SEP-1649 fields crawlers still read (`schemaVersion`, `serverInfo`, `transport`, `capabilities`, `tools`).
 * SPEC.md asks for transport `sse` and a date `schemaVersion`; the remote that actually answers is the
 * streamable-http one.
 */

const CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

export function serverCard(baseUrl: string, paymentsMode: "dev" | "x402") {
  const url = `${baseUrl}/mcp`;
  const tools = listTools().map((tool) => ({
    ...toolListing(tool),
    price_usd: toolPriceUsd(tool),
    ...priceDetail(tool),
  }));
  return {
    $schema: CARD_SCHEMA,
    // The protocol revision this server speaks, as the date-versioned cards in the wild do.
    schemaVersion: LATEST_PROTOCOL_VERSION,
    name: `${reverseDns(baseUrl)}/${SERVER_NAME}`,
    version: SERVER_VERSION,
    title: "procurement-intel",
    description: "Pay-per-call Spanish (PLACSP) and EU (TED) public-procurement data for agents.",
    remotes: [
      {
        type: "streamable-http",
        url,
        supportedProtocolVersions: SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= "2025-03-26"),
      },
    ],
    serverInfo: { name: SERVER_NAME, title: "procurement-intel", version: SERVER_VERSION },
    protocolVersion: LATEST_PROTOCOL_VERSION,
    transport: { type: "sse", url, endpoint: "/mcp" },
    capabilities: { tools: { listChanged: false } },
    tools,
    _meta: {
      "procurement-intel/pricing": {
        currency: "USD",
        payments_mode: paymentsMode,
        pricing_tool: "get_pricing",
        how_to_pay:
          "Unpaid calls answer {payment_required: true, price_usd, how_to_pay}; pay with payment_token " +
          '(x402 payload or dev-faucet token), params._meta["x402/payment"], or client_key (prepaid credits).',
      },
    },
  };
}

/** The purchase tool's price depends on its amount: list each bundle. */
function priceDetail(tool: Tool) {
  if (tool.kind !== "purchase") {
    return {};
  }
  return {
    prices_usd: Object.fromEntries(
      BUNDLE_AMOUNTS.map((amount) => [amount, centsToUsd(bundleEntry(amount)?.priceCents ?? 0)]),
    ),
  };
}

/** `api.example.com` → `com.example.api` (the draft's reverse-DNS name); an IP or localhost → `localhost`. */
function reverseDns(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  if (!/[a-z]/i.test(host) || host.includes(":") || !host.includes(".")) {
    return "localhost";
  }
  return host.split(".").reverse().join(".");
}
