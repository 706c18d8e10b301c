import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { type ServerType, serve } from "@hono/node-server";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { Hono } from "hono";
import {
  type Abi,
  createWalletClient,
  custom,
  type EIP1193Provider,
  type Hex,
  parseAbi,
  publicActions,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { compileContract } from "./solc.ts";
import { BASE_SEPOLIA, BASE_SEPOLIA_USDC } from "./x402.ts";

/**
 * An in-process EVM (hardhat 2, chain id 84532 = Base Sepolia) with the project's EIP-3009 test token placed
 * at the Base Sepolia USDC address, and an x402 facilitator over HTTP on 127.0.0.1 that settles on it with
 * the real `@x402/evm` scheme. Nothing leaves the machine.
 */

/** Hardhat's well-known development keys (public, funded with test ETH on every hardhat chain). */
export const HARDHAT_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
] as const satisfies readonly Hex[];

const TOKEN_ABI = parseAbi([
  "function mint(address to, uint256 value)",
  "function balanceOf(address owner) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
]);

/** The in-process chain and the test token on it. */
export interface Chain {
  provider: EIP1193Provider;
  balanceOf(address: string): Promise<bigint>;
  mint(to: string, amount: bigint): Promise<void>;
  /** Whether the token contract has spent (or cancelled) this EIP-3009 authorisation nonce of `authorizer`. */
  authorizationUsed(authorizer: string, nonce: string): Promise<boolean>;
}

interface Hardhat {
  network: { provider: EIP1193Provider };
}

/** Starts (in this process) the hardhat chain and places the compiled test token at the USDC address. */
export async function startChain(): Promise<Chain> {
  const config = fileURLToPath(new URL("../fixtures/hardhat/hardhat.config.cjs", import.meta.url));
  // Hardhat 2 finds its configuration through this variable when used as a library.
  process.env.HARDHAT_CONFIG = config;
  const require = createRequire(import.meta.url);
  const hre = require("hardhat") as Hardhat;
  const provider = hre.network.provider;
  const token = await compileContract(
    fileURLToPath(new URL("../fixtures/contracts/TestUSDC.sol", import.meta.url)),
    "TestUSDC",
  );
  await provider.request({
    method: "hardhat_setCode" as "eth_call",
    params: [BASE_SEPOLIA_USDC, token.runtime] as never,
  });
  const minter = walletOn(provider, HARDHAT_KEYS[0]);
  return {
    provider,
    async balanceOf(address) {
      return minter.readContract({
        address: BASE_SEPOLIA_USDC,
        abi: TOKEN_ABI,
        functionName: "balanceOf",
        args: [address as Hex],
      });
    },
    async authorizationUsed(authorizer, nonce) {
      return minter.readContract({
        address: BASE_SEPOLIA_USDC,
        abi: TOKEN_ABI,
        functionName: "authorizationState",
        args: [authorizer as Hex, nonce as Hex],
      });
    },
    async mint(to, amount) {
      const hash = await minter.writeContract({
        address: BASE_SEPOLIA_USDC,
        abi: TOKEN_ABI,
        functionName: "mint",
        args: [to as Hex, amount],
      });
      await minter.waitForTransactionReceipt({ hash });
    },
  };
}

/** A wallet client with public actions on the in-process chain (polling fast: hardhat mines on each send). */
function walletOn(provider: EIP1193Provider, key: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(key),
    chain: baseSepolia,
    transport: custom(provider),
    pollingInterval: 20,
  }).extend(publicActions);
}

/** A facilitator listening on 127.0.0.1. */
export interface HttpFacilitator {
  url: string;
  facilitator: x402Facilitator;
  /** Requests received, by path. */
  calls: Record<string, number>;
  close(): Promise<void>;
}

/**
 * An x402 facilitator over HTTP (`/verify`, `/settle`, `/supported`) on 127.0.0.1, settling with hardhat
 * account #0. The signer carries its `address` explicitly: a bare viem wallet client has none, and
 * `/supported` would then list a null signer that resource servers reject.
 */
export async function startHttpFacilitator(chain: Chain): Promise<HttpFacilitator> {
  const wallet = walletOn(chain.provider, HARDHAT_KEYS[0]);
  const signer = toFacilitatorEvmSigner({
    address: wallet.account.address,
    readContract: (args) => wallet.readContract(args as Parameters<typeof wallet.readContract>[0]),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
    writeContract: (args) =>
      wallet.writeContract({ ...args, abi: args.abi as Abi } as Parameters<typeof wallet.writeContract>[0]),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    getCode: (args) => wallet.getCode(args),
  });
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: BASE_SEPOLIA });
  const calls: Record<string, number> = {};
  const app = new Hono();
  app.use("*", async (c, next) => {
    calls[c.req.path] = (calls[c.req.path] ?? 0) + 1;
    await next();
  });
  type Body = { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
  app.post("/verify", async (c) => {
    const body = await c.req.json<Body>();
    return c.json(await facilitator.verify(body.paymentPayload, body.paymentRequirements));
  });
  // One signer account sends one transaction at a time (as a facilitator's nonce manager would): concurrent
  // settlements would otherwise read the same account nonce and all but one would be rejected.
  let settling: Promise<unknown> = Promise.resolve();
  app.post("/settle", async (c) => {
    const body = await c.req.json<Body>();
    const settled = settling.then(() => facilitator.settle(body.paymentPayload, body.paymentRequirements));
    settling = settled.catch(() => {});
    return c.json(await settled);
  });
  app.get("/supported", (c) => c.json(facilitator.getSupported()));
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    facilitator,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
