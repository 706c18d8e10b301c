import { createRequire } from "node:module";
import type { Network } from "@x402/core/types";
import type * as Evm from "@x402/evm";
import type * as EvmV1 from "@x402/evm/v1";
import { type Config, ConfigError } from "../../config.ts";

// `@x402/evm` brings viem (about a second to load): required on first use, so only x402 mode pays for it. Only
// its tables are read here (USDC deployments and their EIP-712 domains, v1 network names), plain data.
const require = createRequire(import.meta.url);
const evm = () => require("@x402/evm") as typeof Evm;
const evmV1 = () => require("@x402/evm/v1") as typeof EvmV1;

/**
 * Where and how this deployment is paid over x402, resolved once at start-up from the X402_* variables and
 * the asset table of `@x402/evm` (the protocol's own list of USDC deployments and their EIP-712 domains).
 */
export interface X402Settings {
  /** CAIP-2 network, e.g. `eip155:84532`. */
  network: Network;
  chainId: number;
  /** The x402 v1 name of the network (`base-sepolia`), or undefined when v1 has no name for it. */
  v1Network: string | undefined;
  /** Token contract address. */
  asset: string;
  assetSymbol: string;
  /** EIP-712 domain of the token: a wrong name or version makes every signature invalid. */
  eip712: { name: string; version: string };
  payTo: string;
  facilitatorUrl: string;
  maxTimeoutSeconds: number;
}

/** The token decimals the price table converts to (`centsToUsdcUnits`): anything else would misprice. */
const PRICE_DECIMALS = 6;

/**
 * Resolves the x402 settings. Throws a one-line `ConfigError` naming the variable when the network has no
 * known USDC, when X402_ASSET is not a stablecoin `@x402/evm` knows there, or when it is not a 6-decimal
 * EIP-3009 token.
 */
export function resolveX402Settings(config: Config): X402Settings {
  if (!config.X402_PAY_TO) {
    throw new ConfigError(
      "X402_PAY_TO: required when PAYMENTS_MODE=x402 (the 0x address that receives payments)",
    );
  }
  const network = config.X402_NETWORK as Network;
  const chainId = Number(network.split(":")[1]);
  const asset = config.X402_ASSET
    ? evm().findDefaultAsset(config.X402_ASSET, network)
    : defaultAssetOf(network);
  if (!asset) {
    throw new ConfigError(
      `X402_ASSET: ${config.X402_ASSET} is not a stablecoin @x402/evm knows on ${network}; ` +
        "unset it to use the network's USDC",
    );
  }
  if (asset.decimals !== PRICE_DECIMALS || (asset.assetTransferMethod ?? "eip3009") !== "eip3009") {
    throw new ConfigError(
      `X402_ASSET: ${asset.asset} on ${network} is not a ${PRICE_DECIMALS}-decimal EIP-3009 token; ` +
        "use the network's USDC",
    );
  }
  return {
    network,
    chainId,
    v1Network: v1NameOf(chainId),
    asset: asset.asset,
    assetSymbol: asset.symbol,
    eip712: { name: asset.name, version: asset.version },
    payTo: config.X402_PAY_TO,
    facilitatorUrl: config.X402_FACILITATOR_URL,
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
  };
}

function defaultAssetOf(network: Network): ReturnType<typeof Evm.getDefaultAsset> | undefined {
  try {
    return evm().getDefaultAsset(network, "USDC");
  } catch {
    throw new ConfigError(
      `X402_NETWORK: @x402/evm knows no USDC on ${network}; ` +
        "use eip155:84532 (Base Sepolia) or eip155:8453 (Base)",
    );
  }
}

/** `84532` → `base-sepolia`: the plain network names x402 v1 used instead of CAIP-2. */
function v1NameOf(chainId: number): string | undefined {
  return Object.entries(evmV1().EVM_NETWORK_CHAIN_ID_MAP).find(([, id]) => id === chainId)?.[0];
}

/** The CAIP-2 network of an x402 v1 network name, or undefined for names v1 does not know. */
export function caip2OfV1Network(name: string): Network | undefined {
  const chainId = (evmV1().EVM_NETWORK_CHAIN_ID_MAP as Record<string, number | undefined>)[name];
  return chainId === undefined ? undefined : `eip155:${chainId}`;
}
