import { x402Client, x402HTTPClient } from "@x402/core/client";
import { x402Facilitator } from "@x402/core/facilitator";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerClientScheme } from "@x402/evm/exact/client";
import { registerExactEvmScheme as registerFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { type Hex, verifyTypedData } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { Facilitator } from "../../src/payments/x402/index.ts";

/**
 * x402 test kit, option A of the research notes: the real `x402Facilitator` with the real `@x402/evm` exact
 * scheme (every check it makes, signature recovery included), over a fake chain that only knows one token:
 * `getCode` answers for the asset, the transfer simulation fails for an authorisation already used, and a
 * "mined" transfer records its nonce. Payers are viem local accounts signing real EIP-3009 authorisations
 * with the official x402 client.
 */

/** Base Sepolia, its USDC, and the fake chain's facilitator account. */
export const BASE_SEPOLIA = "eip155:84532";
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const FACILITATOR_ADDRESS = "0x1111111111111111111111111111111111111111";

/** The in-process facilitator and what it did. */
export interface TestFacilitator {
  /** What the payment method talks to. */
  client: Facilitator;
  facilitator: x402Facilitator;
  /** Authorisations "mined" so far (payer:nonce), in order. */
  transfers: string[];
  calls: { verify: number; settle: number };
  /** The next settlements revert on chain (receipt status `reverted`). */
  failSettlements(on: boolean): void;
}

/** A real `x402Facilitator` with the real EVM exact scheme over the fake chain. */
export function createTestFacilitator(): TestFacilitator {
  const used = new Set<string>();
  const transfers: string[] = [];
  const calls = { verify: 0, settle: 0 };
  let failing = false;
  const key = (from: unknown, nonce: unknown) =>
    `${String(from).toLowerCase()}:${String(nonce).toLowerCase()}`;
  const signer: FacilitatorEvmSigner = {
    getAddresses: () => [FACILITATOR_ADDRESS],
    async readContract(args) {
      if (args.functionName === "transferWithAuthorization") {
        if (used.has(key(args.args?.[0], args.args?.[5]))) {
          throw new Error("FiatTokenV2: authorization is used or canceled");
        }
        return undefined;
      }
      throw new Error(`no contract call ${args.functionName} on the fake chain`);
    },
    verifyTypedData: (args) => verifyTypedData(args as unknown as Parameters<typeof verifyTypedData>[0]),
    async writeContract(args) {
      if (!failing) {
        const id = key(args.args[0], args.args[5]);
        used.add(id);
        transfers.push(id);
      }
      return `0x${(transfers.length + 1).toString(16).padStart(64, "0")}`;
    },
    async sendTransaction() {
      return `0x${"cd".repeat(32)}`;
    },
    async waitForTransactionReceipt() {
      return { status: failing ? "reverted" : "success" };
    },
    async getCode({ address }) {
      return address.toLowerCase() === BASE_SEPOLIA_USDC.toLowerCase() ? "0x6080604052" : undefined;
    },
  };
  const facilitator = registerFacilitatorScheme(new x402Facilitator(), { signer, networks: BASE_SEPOLIA });
  return {
    client: {
      verify: (payload, requirements) => {
        calls.verify++;
        return facilitator.verify(payload, requirements);
      },
      settle: (payload, requirements) => {
        calls.settle++;
        return facilitator.settle(payload, requirements);
      },
    },
    facilitator,
    transfers,
    calls,
    failSettlements(on) {
      failing = on;
    },
  };
}

/** A paying client: a fresh viem account with the official x402 client. */
export interface Payer {
  account: PrivateKeyAccount;
  http: x402HTTPClient;
  /** A PAYMENT-SIGNATURE value for a PAYMENT-REQUIRED header value (optionally edited before signing). */
  sign(paymentRequiredHeader: string, edit?: (required: PaymentRequired) => void): Promise<string>;
  /** The v1 X-PAYMENT value for a v1 402 body, as a v1 client builds it (from the body only). */
  signV1(body: unknown): Promise<string>;
}

/** A payer with the official client; `spendControls: false` lets it sign for tokens it does not know. */
export function createPayer(options: { spendControls?: false } = {}): Payer {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = registerClientScheme(new x402Client(), { signer: account });
  if (options.spendControls === false) {
    client.setSpendControls(false);
  }
  const http = new x402HTTPClient(client);
  return {
    account,
    http,
    async sign(header, edit) {
      const required = decodePaymentRequiredHeader(header);
      edit?.(required);
      const payload = await http.createPaymentPayload(required);
      return encodePaymentSignatureHeader(payload);
    },
    async signV1(body) {
      const required = http.getPaymentRequiredResponse(() => null, body);
      const payload = await http.createPaymentPayload(required);
      const headers = http.encodePaymentSignatureHeader(payload);
      const value = headers["X-PAYMENT"];
      if (!value) {
        throw new Error(`not a v1 payment: ${JSON.stringify(headers)}`);
      }
      return value;
    },
  };
}

/**
 * A v2 payment payload signed by hand, for authorisations the official client would never produce (expired,
 * wrong amount). `requirements` is what the payload claims to accept.
 */
export async function signByHand(
  account: PrivateKeyAccount,
  requirements: PaymentRequirements,
  authorization: { value?: string; validAfter?: bigint; validBefore?: bigint; to?: string },
): Promise<string> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const message = {
    from: account.address,
    to: (authorization.to ?? requirements.payTo) as Hex,
    value: BigInt(authorization.value ?? requirements.amount),
    validAfter: authorization.validAfter ?? 0n,
    validBefore: authorization.validBefore ?? now + 300n,
    nonce: `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}` as Hex,
  };
  const signature = await account.signTypedData({
    domain: {
      name: String(requirements.extra.name),
      version: String(requirements.extra.version),
      chainId: Number(requirements.network.split(":")[1]),
      verifyingContract: requirements.asset as Hex,
    },
    types: {
      TransferWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "TransferWithAuthorization",
    message,
  });
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: requirements,
    payload: {
      signature,
      authorization: {
        from: message.from,
        to: message.to,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
        nonce: message.nonce,
      },
    },
  };
  return encodePaymentSignatureHeader(payload);
}

/** Decodes a base64 JSON header value (payment headers) for assertions and tampering. */
export function decodeHeader(value: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(value, "base64").toString("utf8")) as Record<string, unknown>;
}

/** base64 JSON, as payment headers carry it (for hand-made or tampered payloads). */
export function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64");
}
