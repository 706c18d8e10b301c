import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { type DiscoveryExtension, validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment } from "@x402/fetch";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import type { Facilitator } from "../../src/payments/x402/index.ts";
import { resolveX402Settings } from "../../src/payments/x402/index.ts";
import { buildTestApp, TEST_PAY_TO } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertCompany, insertTender } from "../helpers/factories.ts";
import { runEntry } from "../helpers/process.ts";
import {
  BASE_SEPOLIA,
  BASE_SEPOLIA_USDC,
  createPayer,
  createTestFacilitator,
  decodeHeader,
  encodeHeader,
  signByHand,
  type TestFacilitator,
} from "../helpers/x402.ts";

const t = useTestDb();
const BASE = "http://localhost";

// Priced calls on a database without any tender are refused before payment (test/http/payable.test.ts).
beforeAll(async () => {
  await insertTender(t.db, { sourceRef: "x402-loaded", title: "Loaded" });
});
const TENDER_PRICE_UNITS = "20000"; // 0.02 USD in USDC atomic units

type ErrorBody = {
  error: { code: string; message: string; hint: string };
  x402Version: number;
  resource: { url: string; description: string; mimeType: string };
  accepts: Record<string, unknown>[];
  hint: string;
  extensions: { bazaar: DiscoveryExtension };
};

function x402App(facilitator: TestFacilitator | Facilitator, env: Record<string, string> = {}) {
  const client = "client" in facilitator ? facilitator.client : facilitator;
  return buildTestApp({ db: t.db, env: { PAYMENTS_MODE: "x402", ...env }, facilitator: client }).app;
}

type App = ReturnType<typeof x402App>;

async function call(app: App, path: string, headers: Record<string, string> = {}) {
  const res = await app.request(`${BASE}${path}`, { headers });
  return {
    res,
    body: (await res.json()) as ErrorBody & {
      data?: Record<string, unknown>;
      meta?: Record<string, unknown>;
    },
  };
}

/** The PAYMENT-REQUIRED header of an unpaid call. */
async function challenge(app: App, path: string): Promise<string> {
  const res = await app.request(`${BASE}${path}`);
  expect(res.status).toBe(402);
  return res.headers.get("payment-required") ?? "";
}

async function newTender(ref: string): Promise<number> {
  return insertTender(t.db, { sourceRef: `x402-${ref}`, title: `Tender ${ref}` });
}

async function proofRows(payer: string) {
  const { rows } = await t.db.query<{
    status: string;
    endpoint: string;
    tx: string | null;
    x402_version: number;
  }>(
    `SELECT status, endpoint, tx, x402_version FROM payment_proofs
      WHERE lower(payer) = lower($1) ORDER BY id`,
    [payer],
  );
  return rows;
}

describe("x402: the 402 answer", () => {
  it("carries PAYMENT-REQUIRED (v2) and the spec's body with the error envelope and bazaar", async () => {
    const app = x402App(createTestFacilitator());
    const { res, body } = await call(app, "/v1/tenders/7");
    expect(res.status).toBe(402);
    expect(res.headers.get("cache-control")).toBe("no-store");

    const header = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    const accept = {
      scheme: "exact",
      network: BASE_SEPOLIA,
      asset: BASE_SEPOLIA_USDC,
      amount: TENDER_PRICE_UNITS,
      payTo: TEST_PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: "USDC", version: "2" },
    };
    const resource = {
      url: `${BASE}/v1/tenders/7`,
      description: "One tender with its awards and provenance.",
      mimeType: "application/json",
    };
    expect(header).toMatchObject({ x402Version: 2, resource, accepts: [accept] });

    expect(body.error).toEqual({
      code: "payment_required",
      message:
        `GET /v1/tenders/:id costs 0.02 USD per call (${TENDER_PRICE_UNITS} atomic units of USDC on ` +
        `${BASE_SEPOLIA}); no payment was sent.`,
      hint: expect.stringContaining("PAYMENT-SIGNATURE"),
    });
    expect(body).toMatchObject({
      x402Version: 2,
      resource,
      accepts: [{ ...accept, resource: `${BASE}/v1/tenders/7` }],
      hint: body.error.hint,
    });
    expect(body.hint).toContain(TEST_PAY_TO);

    const bazaar = body.extensions.bazaar;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toMatchObject({ type: "http", method: "GET", pathParams: { id: "7" } });
    expect(bazaar).toMatchObject({ routeTemplate: "/v1/tenders/:id" });
    expect(bazaar.info.output).toMatchObject({
      type: "json",
      example: { data: { id: 1 }, meta: { paid: true } },
    });
    // The header carries a compact declaration (it must fit proxies' header buffers; clients echo it to the
    // facilitator): the same input and route, each input's type, no output example.
    const compact = (header.extensions as { bazaar: DiscoveryExtension }).bazaar;
    expect(validateDiscoveryExtension(compact)).toEqual({ valid: true });
    expect(compact.info.input).toEqual(bazaar.info.input);
    expect(compact).toMatchObject({ routeTemplate: "/v1/tenders/:id" });
    expect(compact.info.output).toBeUndefined();
  });

  it.each([
    ["/v1/search?q=redes", "GET", "queryParams"],
    ["/v1/companies/3", "GET", "pathParams"],
    ["/v1/companies/3/awards", "GET", "pathParams"],
    ["/v1/buyers/4/history", "GET", "pathParams"],
  ])("declares %s for catalogs, valid by its own JSON schema", async (path, method, field) => {
    const app = x402App(createTestFacilitator());
    const { res, body } = await call(app, path);
    expect(res.status).toBe(402);
    const bazaar = body.extensions.bazaar;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toMatchObject({ type: "http", method });
    expect(bazaar.info.input).toHaveProperty(field);
    expect(bazaar.info.output).toMatchObject({ type: "json" });
    // Small enough to travel in headers both ways.
    expect((res.headers.get("payment-required") ?? "").length).toBeLessThan(8000);
  });

  it("names the resource by PUBLIC_BASE_URL, prefix included, and takes proofs made for it", async () => {
    const app = x402App(createTestFacilitator(), { PUBLIC_BASE_URL: "https://api.example.org/procurement/" });
    const id = await newTender("public-url");
    const header = await challenge(app, `/v1/tenders/${id}`);
    const url = `https://api.example.org/procurement/v1/tenders/${id}`;
    expect(decodePaymentRequiredHeader(header).resource.url).toBe(url);
    const signed = await createPayer().sign(header);
    expect((await call(app, `/v1/tenders/${id}`, { "payment-signature": signed })).res.status).toBe(200);
  });

  it("validates before asking for payment: a bad id is a 400", async () => {
    const app = x402App(createTestFacilitator());
    const { res } = await call(app, "/v1/tenders/abc");
    expect(res.status).toBe(400);
    expect(res.headers.get("payment-required")).toBeNull();
  });
});

describe("x402: paying", () => {
  it("serves a call paid with the official client, once, and records it", async () => {
    const facilitator = createTestFacilitator();
    const app = x402App(facilitator);
    const id = await newTender("paid");
    const payer = createPayer();
    const pay = wrapFetchWithPayment(async (input, init) => app.fetch(new Request(input, init)), payer.http);

    const res = await pay(`${BASE}/v1/tenders/${id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: number; title: string }; meta: Record<string, unknown> };
    expect(body.data).toMatchObject({ id, title: "Tender paid" });
    expect(body.meta).toMatchObject({ paid: true, price_usd: "0.02" });
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response") ?? "");
    expect(settlement).toMatchObject({ success: true, network: BASE_SEPOLIA, payer: payer.account.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(facilitator.transfers).toHaveLength(1);

    expect(await proofRows(payer.account.address)).toEqual([
      { status: "settled", endpoint: "GET /v1/tenders/:id", tx: settlement.transaction, x402_version: 2 },
    ]);
    const { rows } = await t.db.query<{ method: string; price_cents: number }>(
      "SELECT method, price_cents FROM api_calls WHERE request_id = $1",
      [res.headers.get("x-request-id")],
    );
    expect(rows).toEqual([{ method: "x402", price_cents: 2 }]);
  });

  it("refuses a replayed proof, sequentially and when 20 requests race with it", async () => {
    const facilitator = createTestFacilitator();
    const app = x402App(facilitator);
    const id = await newTender("replay");
    const payer = createPayer();

    const first = await payer.sign(await challenge(app, `/v1/tenders/${id}`));
    expect((await call(app, `/v1/tenders/${id}`, { "payment-signature": first })).res.status).toBe(200);
    const again = await call(app, `/v1/tenders/${id}`, { "payment-signature": first });
    expect(again.res.status).toBe(402);
    expect(again.body.error.message).toMatch(/already been used \(settled in transaction 0x[0-9a-f]+\)/);
    expect(again.body.error.hint).toMatch(/fresh nonce/);
    expect(again.body.data).toBeUndefined();

    const racing = await payer.sign(await challenge(app, `/v1/tenders/${id}`));
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => call(app, `/v1/tenders/${id}`, { "payment-signature": racing })),
    );
    const statuses = responses.map((r) => r.res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    expect(responses.filter((r) => r.body.data !== undefined)).toHaveLength(1);
    expect(facilitator.transfers).toHaveLength(2);
    expect((await proofRows(payer.account.address)).map((r) => r.status)).toEqual(["settled", "settled"]);
  });

  it("refuses a tampered signature (real signature recovery) and claims nothing", async () => {
    const facilitator = createTestFacilitator();
    const app = x402App(facilitator);
    const id = await newTender("tampered");
    const payer = createPayer();
    const payload = decodeHeader(await payer.sign(await challenge(app, `/v1/tenders/${id}`)));
    const inner = payload.payload as { signature: string };
    const last = inner.signature.slice(-4, -2) === "00" ? "01" : "00";
    inner.signature = `${inner.signature.slice(0, -4)}${last}${inner.signature.slice(-2)}`;
    const { res, body } = await call(app, `/v1/tenders/${id}`, {
      "payment-signature": encodeHeader(payload),
    });
    expect(res.status).toBe(402);
    expect(body.error.message).toMatch(/facilitator refused the payment: invalid_exact_evm_signature/);
    expect(body.error.hint).toContain('name: "USDC"');
    expect(decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "").error).toBe(
      "invalid_exact_evm_signature",
    );
    expect(await proofRows(payer.account.address)).toEqual([]);
    expect(facilitator.calls.settle).toBe(0);
  });

  it("refuses a tampered amount in a correctly re-encoded payload", async () => {
    const app = x402App(createTestFacilitator());
    const id = await newTender("value");
    const payer = createPayer();
    const payload = decodeHeader(await payer.sign(await challenge(app, `/v1/companies/${id}`)));
    // Sign for a company profile (0.05) but claim the authorisation says the tender's 0.02: signature breaks.
    const auth = (payload.payload as { authorization: { value: string } }).authorization;
    auth.value = TENDER_PRICE_UNITS;
    (payload.accepted as { amount: string }).amount = TENDER_PRICE_UNITS;
    (payload.resource as { url: string }).url = `${BASE}/v1/tenders/${id}`;
    const { res, body } = await call(app, `/v1/tenders/${id}`, {
      "payment-signature": encodeHeader(payload),
    });
    expect(res.status).toBe(402);
    expect(body.error.message).toMatch(/invalid_exact_evm_signature/);
  });

  it("refuses a proof made for another (cheaper) endpoint, or for another amount", async () => {
    const app = x402App(createTestFacilitator());
    const company = await insertCompany(t.db, "Proofs SL");
    const payer = createPayer();
    const forTender = await payer.sign(await challenge(app, "/v1/tenders/1"));
    const other = await call(app, `/v1/companies/${company}`, { "payment-signature": forTender });
    expect(other.res.status).toBe(402);
    expect(other.body.error.message).toBe(
      "The payment proof was made for /v1/tenders/1, not for GET /v1/companies/:id.",
    );

    const requirements = decodePaymentRequiredHeader(await challenge(app, `/v1/companies/${company}`))
      .accepts[0] as PaymentRequirements;
    const cheap = await signByHand(payer.account, requirements, { value: TENDER_PRICE_UNITS });
    const amount = await call(app, `/v1/companies/${company}`, { "payment-signature": cheap });
    expect(amount.res.status).toBe(402);
    expect(amount.body.error.message).toBe(
      `The payment authorises ${TENDER_PRICE_UNITS} atomic units; GET /v1/companies/:id costs 0.05 USD ` +
        `per call (50000 atomic units of USDC on ${BASE_SEPOLIA}). A proof pays for one endpoint's exact price.`,
    );
    expect(amount.body.error.hint).toContain("50000 atomic units");
  });

  it("refuses a wrong recipient, network or asset, saying which", async () => {
    const app = x402App(createTestFacilitator());
    const id = await newTender("wrong");
    const payer = createPayer({ spendControls: false });
    const header = await challenge(app, `/v1/tenders/${id}`);
    const elsewhere = "0x000000000000000000000000000000000000dEaD";
    const cases: [string, (r: { accepts: PaymentRequirements[] }) => void, RegExp][] = [
      [
        "recipient",
        (r) => Object.assign(r.accepts[0] ?? {}, { payTo: elsewhere }),
        /goes to 0x0+dEaD, not to/,
      ],
      [
        "network",
        (r) => Object.assign(r.accepts[0] ?? {}, { network: "eip155:8453" }),
        /network eip155:8453; .* eip155:84532/,
      ],
      [
        "asset",
        (r) => Object.assign(r.accepts[0] ?? {}, { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }),
        /asset 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913; this service is paid in USDC/,
      ],
    ];
    for (const [name, edit, message] of cases) {
      const signed = await payer.sign(header, edit);
      const { res, body } = await call(app, `/v1/tenders/${id}`, { "payment-signature": signed });
      expect(res.status, name).toBe(402);
      expect(body.error.message, name).toMatch(message);
      expect(body.error.hint, name).toContain(TEST_PAY_TO);
    }
    expect(await proofRows(payer.account.address)).toEqual([]);
  });

  it("refuses an expired or not-yet-valid authorisation", async () => {
    const app = x402App(createTestFacilitator());
    const id = await newTender("expired");
    const payer = createPayer();
    const requirements = decodePaymentRequiredHeader(await challenge(app, `/v1/tenders/${id}`))
      .accepts[0] as PaymentRequirements;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const expired = await signByHand(payer.account, requirements, { validBefore: now - 10n });
    const old = await call(app, `/v1/tenders/${id}`, { "payment-signature": expired });
    expect(old.res.status).toBe(402);
    expect(old.body.error.message).toMatch(/^The payment authorisation expired \(validBefore \d{4}-/);
    const early = await signByHand(payer.account, requirements, { validAfter: now + 3600n });
    const future = await call(app, `/v1/tenders/${id}`, { "payment-signature": early });
    expect(future.res.status).toBe(402);
    expect(future.body.error.message).toMatch(/not valid yet/);
  });

  it.each([
    ["PAYMENT-SIGNATURE", "%%%not-base64%%%", /^PAYMENT-SIGNATURE is not valid base64\.$/, 2],
    [
      "PAYMENT-SIGNATURE",
      Buffer.from("{not json").toString("base64"),
      /is base64 but does not decode to JSON/,
      2,
    ],
    ["PAYMENT-SIGNATURE", encodeHeader({ hello: 1 }), /not an x402 payment payload \(no x402Version\)/, 2],
    ["PAYMENT-SIGNATURE", encodeHeader({ x402Version: 2 }), /not a valid x402 v2 .*: accepted is missing/, 2],
    ["PAYMENT-SIGNATURE", encodeHeader({ x402Version: 7 }), /x402Version 7/, 2],
    [
      "X-PAYMENT",
      encodeHeader({ x402Version: 1, scheme: "exact" }),
      /not a valid x402 v1 .*: network is missing/,
      1,
    ],
    ["X-PAYMENT", "%%%", /neither a key issued by this service nor an x402 v1 .*not valid base64/, 2],
    [
      "X-PAYMENT",
      Buffer.from("{oops").toString("base64"),
      /\(X-PAYMENT is base64 but does not decode to JSON\.\)/,
      2,
    ],
  ])("answers malformed %s %j with 402 and a hint", async (header, value, message, version) => {
    const app = x402App(createTestFacilitator());
    const { res, body } = await call(app, "/v1/tenders/1", { [header]: value });
    expect(res.status).toBe(402);
    expect(body.error.message).toMatch(message);
    expect(body.error.hint.length).toBeGreaterThan(20);
    expect(body.x402Version).toBe(version);
    expect(res.headers.get("payment-required")).toBeTruthy();
  });

  it("points a v2 payload sent in X-PAYMENT to PAYMENT-SIGNATURE", async () => {
    const app = x402App(createTestFacilitator());
    const payer = createPayer();
    const signed = await payer.sign(await challenge(app, "/v1/tenders/1"));
    const { res, body } = await call(app, "/v1/tenders/1", { "x-payment": signed });
    expect(res.status).toBe(402);
    expect(body.error.message).toMatch(/X-PAYMENT carries an x402 v2 payment payload/);
    expect(body.error.hint).toMatch(/^Send x402 v2 payloads in header PAYMENT-SIGNATURE/);
  });
});

describe("x402 v1 (X-PAYMENT)", () => {
  it("answers v1 clients with a v1 body they can pay from, settles, and refuses the replay", async () => {
    const facilitator = createTestFacilitator();
    const app = x402App(facilitator);
    const id = await newTender("v1");
    const payer = createPayer();

    // A v1 client shows itself by its X-PAYMENT payload; the refusal is then written for v1.
    const probe = encodeHeader({ x402Version: 1, scheme: "exact", network: "base-sepolia" });
    const refused = await call(app, `/v1/tenders/${id}`, { "x-payment": probe });
    expect(refused.res.status).toBe(402);
    expect(refused.body).toMatchObject({
      x402Version: 1,
      accepts: [
        {
          scheme: "exact",
          network: "base-sepolia",
          maxAmountRequired: TENDER_PRICE_UNITS,
          amount: TENDER_PRICE_UNITS,
          asset: BASE_SEPOLIA_USDC,
          payTo: TEST_PAY_TO,
          resource: `${BASE}/v1/tenders/${id}`,
          description: "One tender with its awards and provenance.",
          mimeType: "application/json",
          maxTimeoutSeconds: 300,
          extra: { name: "USDC", version: "2" },
        },
      ],
    });

    // The official client reads that body as a v1 requirement (no header) and signs a v1 payload.
    const xPayment = await payer.signV1(refused.body);
    expect(decodeHeader(xPayment)).toMatchObject({ x402Version: 1, network: "base-sepolia" });
    const paid = await call(app, `/v1/tenders/${id}`, { "x-payment": xPayment });
    expect(paid.res.status).toBe(200);
    expect(paid.body.data).toMatchObject({ id });
    expect(paid.body.meta).toMatchObject({ paid: true, price_usd: "0.02" });
    expect(paid.res.headers.get("payment-response")).toBeNull();
    expect(decodePaymentResponseHeader(paid.res.headers.get("x-payment-response") ?? "")).toMatchObject({
      success: true,
      network: "base-sepolia",
    });
    expect(await proofRows(payer.account.address)).toMatchObject([{ status: "settled", x402_version: 1 }]);

    const replay = await call(app, `/v1/tenders/${id}`, { "x-payment": xPayment });
    expect(replay.res.status).toBe(402);
    expect(replay.body.x402Version).toBe(1);
    expect(replay.body.error.message).toMatch(/already been used/);
  });

  it("refuses a v1 payload for another network", async () => {
    const app = x402App(createTestFacilitator());
    const body = (await call(app, "/v1/tenders/1", { "x-payment": encodeHeader({ x402Version: 1 }) })).body;
    const payer = createPayer();
    const v1 = await payer.signV1(body);
    const moved = { ...decodeHeader(v1), network: "base" };
    const { res, body: refused } = await call(app, "/v1/tenders/1", { "x-payment": encodeHeader(moved) });
    expect(res.status).toBe(402);
    expect(refused.error.message).toBe(
      "The payment is for network base; this service is paid on base-sepolia.",
    );
  });
});

describe("x402: nothing served, nothing charged", () => {
  it("does not settle when the handler finds nothing (404), and the proof stays usable", async () => {
    const facilitator = createTestFacilitator();
    const app = x402App(facilitator);
    const payer = createPayer();
    const signed = await payer.sign(await challenge(app, "/v1/tenders/987654321"));
    const missing = await call(app, "/v1/tenders/987654321", { "payment-signature": signed });
    expect(missing.res.status).toBe(404);
    expect(missing.res.headers.get("payment-response")).toBeNull();
    expect(facilitator.calls.settle).toBe(0);
    expect(await proofRows(payer.account.address)).toMatchObject([{ status: "failed" }]);

    const id = await newTender("after-404");
    const served = await call(app, `/v1/tenders/${id}`, { "payment-signature": signed });
    expect(served.res.status).toBe(200);
    expect(facilitator.transfers).toHaveLength(1);
    expect(await proofRows(payer.account.address)).toMatchObject([{ status: "settled" }]);
  });

  it("serves nothing when settlement fails, leaves the claim failed, takes the proof again later", async () => {
    const facilitator = createTestFacilitator();
    const app = x402App(facilitator);
    const id = await newTender("settle-fails");
    const payer = createPayer();
    const signed = await payer.sign(await challenge(app, `/v1/tenders/${id}`));

    facilitator.failSettlements(true);
    const failed = await call(app, `/v1/tenders/${id}`, { "payment-signature": signed });
    expect(failed.res.status).toBe(402);
    expect(failed.body.data).toBeUndefined();
    expect(JSON.stringify(failed.body)).not.toContain(`Tender settle-fails`);
    expect(failed.body.error.message).toMatch(/could not be settled: invalid_exact_evm_transaction_failed/);
    expect(decodePaymentResponseHeader(failed.res.headers.get("payment-response") ?? "")).toMatchObject({
      success: false,
    });
    expect(await proofRows(payer.account.address)).toMatchObject([{ status: "failed", tx: null }]);
    const { rows } = await t.db.query("SELECT 1 FROM api_calls WHERE request_id = $1", [
      failed.res.headers.get("x-request-id"),
    ]);
    expect(rows).toEqual([]);

    facilitator.failSettlements(false);
    const retried = await call(app, `/v1/tenders/${id}`, { "payment-signature": signed });
    expect(retried.res.status).toBe(200);
    expect(await proofRows(payer.account.address)).toMatchObject([{ status: "settled" }]);
  });

  it("answers a facilitator outage with a retry hint and consumes nothing", async () => {
    const working = createTestFacilitator();
    // Port 9 on the loopback: connection refused, no network involved.
    const down = new HTTPFacilitatorClient({ url: "http://127.0.0.1:9", timeoutMs: 2000 });
    const id = await newTender("outage");
    const payer = createPayer();
    const signed = await payer.sign(await challenge(x402App(working), `/v1/tenders/${id}`));

    const outage = await call(x402App(down), `/v1/tenders/${id}`, { "payment-signature": signed });
    expect(outage.res.status).toBe(402);
    expect(outage.body.data).toBeUndefined();
    expect(outage.body.error.message).toMatch(
      /^The payment could not be verified: the payment facilitator is unreachable/,
    );
    expect(outage.body.error.hint).toMatch(
      /Nothing was charged .* retry the same request with the same payment header/,
    );
    expect(outage.res.headers.get("retry-after")).toBe("5");
    expect(await proofRows(payer.account.address)).toEqual([]);

    // Down while settling: the answer is withheld and the claim given back.
    const flaky: Facilitator = {
      verify: (p, r) => working.client.verify(p, r),
      settle: () => Promise.reject(new TypeError("fetch failed")),
    };
    const unsettled = await call(x402App(flaky), `/v1/tenders/${id}`, { "payment-signature": signed });
    expect(unsettled.res.status).toBe(402);
    expect(unsettled.body.data).toBeUndefined();
    expect(unsettled.body.error.message).toMatch(
      /could not be settled: the payment facilitator is unreachable/,
    );
    expect(await proofRows(payer.account.address)).toMatchObject([{ status: "failed" }]);

    const later = await call(x402App(working), `/v1/tenders/${id}`, { "payment-signature": signed });
    expect(later.res.status).toBe(200);
    expect(working.transfers).toHaveLength(1);
  });
});

describe("x402: pricing, llms.txt and start-up", () => {
  it("shows the real terms and the payment flow in GET /v1/pricing", async () => {
    const app = x402App(createTestFacilitator());
    const res = await app.request("/v1/pricing");
    const { data } = (await res.json()) as {
      data: { payments_mode: string; payment_flow: Record<string, unknown> };
    };
    expect(data.payments_mode).toBe("x402");
    expect(data.payment_flow).toMatchObject({
      protocol: "x402",
      version: 2,
      required_header: "PAYMENT-REQUIRED",
      signature_header: "PAYMENT-SIGNATURE",
      header: "X-PAYMENT",
      faucet: null,
      x402: {
        scheme: "exact",
        network: BASE_SEPOLIA,
        asset: BASE_SEPOLIA_USDC,
        asset_symbol: "USDC",
        asset_decimals: 6,
        eip712_domain: { name: "USDC", version: "2" },
        pay_to: TEST_PAY_TO,
        max_timeout_seconds: 300,
        v1_network: "base-sepolia",
      },
    });
    const steps = (data.payment_flow.steps as string[]).join("\n");
    for (const fact of [
      BASE_SEPOLIA,
      BASE_SEPOLIA_USDC,
      TEST_PAY_TO,
      "PAYMENT-SIGNATURE",
      "PAYMENT-RESPONSE",
    ]) {
      expect(steps).toContain(fact);
    }
  });

  it("states network, asset and recipient in llms.txt", async () => {
    const app = x402App(createTestFacilitator(), { X402_MAX_TIMEOUT_SECONDS: "120" });
    const text = await (await app.request("/llms.txt")).text();
    for (const fact of [BASE_SEPOLIA, BASE_SEPOLIA_USDC, TEST_PAY_TO, "PAYMENT-SIGNATURE", "X-PAYMENT"]) {
      expect(text).toContain(fact);
    }
    const { res } = await call(app, "/v1/search");
    expect(
      decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "").accepts[0]?.maxTimeoutSeconds,
    ).toBe(120);
  });

  it("refuses to start in x402 mode without X402_PAY_TO, naming it in one line", async () => {
    expect(() => loadConfig({ PAYMENTS_MODE: "x402" })).toThrow(
      new ConfigError(
        "X402_PAY_TO: required when PAYMENTS_MODE=x402 (the 0x address that receives the payments)",
      ),
    );
    expect(() => loadConfig({ PAYMENTS_MODE: "x402", X402_PAY_TO: "0x12" })).toThrow(
      /^X402_PAY_TO: must be a 0x/,
    );
    const { code, stderr } = await runEntry("src/main.ts", [], {
      PAYMENTS_MODE: "x402",
      PORT: "0",
      INGEST_SCHEDULE: "off",
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      "configuration error: X402_PAY_TO: required when PAYMENTS_MODE=x402 " +
        "(the 0x address that receives the payments)",
    );
  });

  it("resolves the network's USDC and refuses assets it cannot price", () => {
    const base = loadConfig({ PAYMENTS_MODE: "x402", X402_PAY_TO: TEST_PAY_TO, X402_NETWORK: "eip155:8453" });
    expect(resolveX402Settings(base)).toMatchObject({
      network: "eip155:8453",
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      eip712: { name: "USD Coin", version: "2" },
      v1Network: "base",
    });
    const unknown = loadConfig({ PAYMENTS_MODE: "x402", X402_PAY_TO: TEST_PAY_TO, X402_ASSET: TEST_PAY_TO });
    expect(() => resolveX402Settings(unknown)).toThrow(
      /^X402_ASSET: 0x209693.* is not a stablecoin @x402\/evm knows/,
    );
    const nowhere = loadConfig({
      PAYMENTS_MODE: "x402",
      X402_PAY_TO: TEST_PAY_TO,
      X402_NETWORK: "eip155:999999",
    });
    expect(() => resolveX402Settings(nowhere)).toThrow(
      /^X402_NETWORK: @x402\/evm knows no USDC on eip155:999999/,
    );
  });
});
