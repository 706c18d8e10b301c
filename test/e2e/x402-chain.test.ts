import { decodePaymentResponseHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTender } from "../helpers/factories.ts";
import { type Spawned, spawnServer, waitForListening } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";
import { createPayer, encodeHeader } from "../helpers/x402.ts";
import {
  type Chain,
  HARDHAT_KEYS,
  type HttpFacilitator,
  startChain,
  startHttpFacilitator,
} from "../helpers/x402-chain.ts";

/**
 * x402 settled for real: an in-process hardhat chain (Base Sepolia's chain id) with the project's EIP-3009
 * token at the Base Sepolia USDC address, a facilitator over HTTP, the real server process in
 * PAYMENTS_MODE=x402, and the official `@x402/fetch` client paying from a funded account. Balances are read
 * back from the chain.
 */

const PAY_TO = "0x90F79bf6EB2c4f870365E785982E1f101E93b906"; // hardhat account #3: receives, never signs
const TENDER_UNITS = 20_000n; // 0.02 USD
const BUNDLE_UNITS = 5_000_000n; // 5.00 USD

describe("x402 on a local chain, end to end", () => {
  let chain: Chain;
  let facilitator: HttpFacilitator;
  let database: ServerDatabase;
  let server: Spawned;
  let base: string;
  let tenderId: number;
  const payer = privateKeyToAccount(HARDHAT_KEYS[1]);

  beforeAll(async () => {
    chain = await startChain();
    await chain.mint(payer.address, 100_000_000n); // 100 USDC
    facilitator = await startHttpFacilitator(chain);
    database = await createServerDatabase();
    tenderId = await database.withDb((db) =>
      insertTender(db, { sourceRef: "x402-chain", title: "Red corporativa" }),
    );
    server = spawnServer({
      ...database.env,
      PAYMENTS_MODE: "x402",
      X402_PAY_TO: PAY_TO,
      X402_FACILITATOR_URL: facilitator.url,
    });
    base = `http://127.0.0.1:${await waitForListening(server)}`;
  });

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await facilitator?.close();
    await database?.destroy();
  });

  it("402 → pay with @x402/fetch → 200 with data; payTo gains exactly the price; replay refused", async () => {
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const signature = request.headers.get("payment-signature");
      if (signature) {
        sent.push(signature);
      }
      return fetch(request);
    };
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    const pay = wrapFetchWithPayment(recording, client);
    const url = `${base}/v1/tenders/${tenderId}`;

    const unpaid = await fetch(url);
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("payment-required")).toBeTruthy();

    const before = await chain.balanceOf(PAY_TO);
    const payerBefore = await chain.balanceOf(payer.address);
    const res = await pay(url);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: { id: number; title: string };
      meta: { paid: boolean; price_usd: string };
    };
    expect(body.data).toMatchObject({ id: tenderId, title: "Red corporativa" });
    expect(body.meta).toMatchObject({ paid: true, price_usd: "0.02" });
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response") ?? "");
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address });
    expect(await chain.balanceOf(PAY_TO)).toBe(before + TENDER_UNITS);
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - TENDER_UNITS);

    expect(sent).toHaveLength(1);
    const replay = await fetch(url, { headers: { "PAYMENT-SIGNATURE": sent[0] ?? "" } });
    expect(replay.status).toBe(402);
    const refused = (await replay.json()) as { error: { message: string }; data?: unknown };
    expect(refused.error.message).toMatch(/already been used/);
    expect(refused.data).toBeUndefined();
    expect(await chain.balanceOf(PAY_TO)).toBe(before + TENDER_UNITS);
  });

  it("takes a v1 X-PAYMENT and answers with X-PAYMENT-RESPONSE", async () => {
    const v1Payer = createPayer();
    await chain.mint(v1Payer.account.address, 1_000_000n);
    const url = `${base}/v1/tenders/${tenderId}`;
    // A v1 client identified by its X-PAYMENT gets the v1 body, which the official client pays from.
    const probe = await fetch(url, { headers: { "X-PAYMENT": encodeHeader({ x402Version: 1 }) } });
    expect(probe.status).toBe(402);
    const v1Body = (await probe.json()) as { x402Version: number };
    expect(v1Body.x402Version).toBe(1);

    const before = await chain.balanceOf(PAY_TO);
    const xPayment = await v1Payer.signV1(v1Body);
    const res = await fetch(url, { headers: { "X-PAYMENT": xPayment } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { id: number } }).data.id).toBe(tenderId);
    expect(decodePaymentResponseHeader(res.headers.get("x-payment-response") ?? "")).toMatchObject({
      success: true,
      network: "base-sepolia",
    });
    expect(await chain.balanceOf(PAY_TO)).toBe(before + TENDER_UNITS);

    const replay = await fetch(url, { headers: { "X-PAYMENT": xPayment } });
    expect(replay.status).toBe(402);
    expect(await chain.balanceOf(PAY_TO)).toBe(before + TENDER_UNITS);
  });

  it("buys a 5 USD bundle over x402 and credits 500 cents", async () => {
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    // The client's default cap is 1 USD per payment; a bundle is a deliberate bigger payment.
    client.setSpendControls({ maxAmountPerPayment: "$25" });
    const pay = wrapFetchWithPayment(fetch, client);
    const key = `e2e-bundle-${Date.now().toString(36)}-key`;
    const before = await chain.balanceOf(PAY_TO);

    const res = await pay(`${base}/v1/billing/credits/5`, {
      method: "POST",
      headers: { "x-client-key": key },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { balance_cents: number; credited_cents: number } };
    expect(body.data).toMatchObject({ balance_cents: 500, credited_cents: 500 });
    expect(await chain.balanceOf(PAY_TO)).toBe(before + BUNDLE_UNITS);

    const balance = await fetch(`${base}/v1/billing`, { headers: { "x-client-key": key } });
    expect(((await balance.json()) as { data: { balance_cents: number } }).data.balance_cents).toBe(500);
  });

  it("reached the facilitator over HTTP for every payment", () => {
    expect(facilitator.calls["/verify"]).toBeGreaterThanOrEqual(3);
    expect(facilitator.calls["/settle"]).toBe(3);
  });

  // After the facilitator count above, which counts the REST payments only.
  it("pays MCP tools over x402: payment_token and params._meta, one ledger with REST", async () => {
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    const call = async (args: Record<string, unknown>, meta?: Record<string, unknown>) => {
      const res = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_tender", arguments: args, ...(meta ? { _meta: meta } : {}) },
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { result: McpResult }).result;
    };
    type McpResult = {
      isError?: boolean;
      structuredContent: Record<string, unknown>;
      _meta?: Record<string, unknown>;
    };

    const unpaid = await call({ id: tenderId });
    expect(unpaid.isError).toBeFalsy();
    const how = unpaid.structuredContent.how_to_pay as {
      method: string;
      x402Version: number;
      resource: { url: string };
      accepts: (Record<string, unknown> & { resource?: string })[];
      extensions: Record<string, unknown>;
    };
    expect(unpaid.structuredContent).toMatchObject({ payment_required: true, price_usd: "0.02" });
    expect(how).toMatchObject({
      method: "x402",
      x402Version: 2,
      resource: { url: `${base}/v1/tenders/${tenderId}` },
    });
    expect(how.accepts[0]).toMatchObject({
      scheme: "exact",
      network: "eip155:84532",
      amount: "20000",
      payTo: PAY_TO,
    });
    // The REST 402's requirement, rebuilt as an x402 client reads it (accepts entries without the v1 resource).
    const required = {
      x402Version: 2 as const,
      resource: how.resource,
      accepts: how.accepts.map(({ resource: _url, ...accepted }) => accepted),
      extensions: how.extensions,
    } as unknown as Parameters<typeof client.createPaymentPayload>[0];

    const before = await chain.balanceOf(PAY_TO);
    const token = Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString("base64");
    const paid = await call({ id: tenderId, payment_token: token });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({
      data: { id: tenderId },
      meta: { paid: true, price_usd: "0.02" },
    });
    expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true, network: "eip155:84532" });
    expect(await chain.balanceOf(PAY_TO)).toBe(before + TENDER_UNITS);

    // The proof spent over MCP is spent over REST too.
    const replay = await fetch(`${base}/v1/tenders/${tenderId}`, { headers: { "PAYMENT-SIGNATURE": token } });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { error: { message: string } }).error.message).toMatch(
      /already been used/,
    );

    // x402's MCP transport: the payload object in params._meta["x402/payment"].
    const payload = await client.createPaymentPayload(required);
    const viaMeta = await call({ id: tenderId }, { "x402/payment": payload });
    expect(viaMeta.isError).toBeFalsy();
    expect(viaMeta._meta?.["x402/payment-response"]).toMatchObject({ success: true });
    expect(await chain.balanceOf(PAY_TO)).toBe(before + 2n * TENDER_UNITS);
    const again = await call({ id: tenderId }, { "x402/payment": payload });
    expect(again.structuredContent).toMatchObject({ payment_required: true });
    expect(String(again.structuredContent.message)).toMatch(/already been used/);
    expect(await chain.balanceOf(PAY_TO)).toBe(before + 2n * TENDER_UNITS);
  });
});
