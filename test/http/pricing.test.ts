import { describe, expect, it } from "vitest";
import { PRICE_TABLE } from "../../src/domain/pricing/price-table.ts";
import { buildTestApp, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { specEndpoints } from "../helpers/spec.ts";

const t = useTestDb();

interface PricingBody {
  data: {
    currency: string;
    payments_mode: string;
    endpoints: { endpoint: string; price_usd: string; free: boolean }[];
    billing: { mechanism: string; bundles: unknown[]; balance_endpoint: string; usage: string };
    subscription: Record<string, unknown>;
    payment_flow: Record<string, unknown>;
  };
  meta: { price_usd: string; paid: boolean; provenance: unknown[]; request_id: string };
}

describe("the price table", () => {
  it("holds every priced and free endpoint of the spec's Endpoints table, at the spec's price", () => {
    const spec = specEndpoints().filter((row) => row.price === "free" || /^\d+\.\d{2}$/.test(row.price));
    expect(spec.length).toBe(15); // 11 priced + 4 free rows in SPEC.md
    for (const row of spec) {
      const entry = PRICE_TABLE.find((e) => e.endpoint === row.endpoint);
      expect(entry, row.endpoint).toBeDefined();
      expect(entry?.free).toBe(row.price === "free");
      expect(entry?.priceCents).toBe(row.price === "free" ? 0 : Math.round(Number(row.price) * 100));
    }
    expect(PRICE_TABLE.length).toBe(spec.length);
  });
});

describe("GET /v1/pricing", () => {
  it("is free and in the envelope", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, "/v1/pricing");
    expect(res.status).toBe(200);
    const { meta } = body as unknown as PricingBody;
    expect(meta.price_usd).toBe("0.00");
    expect(meta.paid).toBe(false);
    expect(meta.provenance).toEqual([]);
  });

  it("lists the served endpoints at the spec's prices, and only those", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { data } = (await getJson(app, "/v1/pricing")).body as unknown as PricingBody;
    const spec = new Map(specEndpoints().map((row) => [row.endpoint, row.price]));
    expect(data.endpoints.map((e) => e.endpoint)).toEqual(["GET /v1/tenders/:id", "GET /v1/pricing"]);
    for (const entry of data.endpoints) {
      const price = spec.get(entry.endpoint);
      expect(entry.free).toBe(price === "free");
      expect(entry.price_usd).toBe(price === "free" ? "0.00" : price);
      // Every listed endpoint answers something other than 404 (a priced one answers 402 without payment).
      const [method, path] = entry.endpoint.split(" ");
      const res = await app.request((path ?? "").replace(":id", "1"), { method });
      expect(res.status, entry.endpoint).not.toBe(404);
    }
  });

  it("has the spec's shape in dev mode", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { data } = (await getJson(app, "/v1/pricing")).body as unknown as PricingBody;
    expect(data.currency).toBe("USD");
    expect(data.payments_mode).toBe("dev");
    expect(data.billing).toMatchObject({
      mechanism: "prepaid_credits",
      bundles: [],
      balance_endpoint: "GET /v1/billing",
    });
    expect(typeof data.billing.usage).toBe("string");
    expect(data.subscription).toEqual({
      available: false,
      provider: "paddle",
      currency: "EUR",
      price_monthly_cents: 2900,
      price_monthly: "29.00",
      checkout_endpoint: "POST /v1/mor/checkout",
      mechanics: expect.stringContaining("30 days"),
    });
    expect(data.payment_flow).toEqual({
      protocol: "x402",
      version: 2,
      steps: expect.arrayContaining([expect.stringContaining("POST /v1/dev-faucet")]),
      required_header: "PAYMENT-REQUIRED",
      signature_header: "PAYMENT-SIGNATURE",
      header: "X-PAYMENT",
      faucet: "POST /v1/dev-faucet",
    });
  });

  it("shows the configured subscription price and no faucet in x402 mode", async () => {
    const { app } = buildTestApp({
      db: t.db,
      env: { PAYMENTS_MODE: "x402", MOR_PRICE_MONTHLY_CENTS: "3450" },
    });
    const { data } = (await getJson(app, "/v1/pricing")).body as unknown as PricingBody;
    expect(data.payments_mode).toBe("x402");
    expect(data.payment_flow.faucet).toBeNull();
    expect(data.subscription.price_monthly_cents).toBe(3450);
    expect(data.subscription.price_monthly).toBe("34.50");
    expect(data.payment_flow.steps).toEqual(
      expect.arrayContaining([expect.stringContaining("PAYMENT-SIGNATURE")]),
    );
  });
});
