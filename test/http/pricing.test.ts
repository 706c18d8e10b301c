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

  it("lists exactly the endpoints this build answers, at the spec's prices", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { data } = (await getJson(app, "/v1/pricing")).body as unknown as PricingBody;
    const spec = new Map(specEndpoints().map((row) => [row.endpoint, row.price]));
    const listed = new Set(data.endpoints.map((e) => e.endpoint));
    for (const entry of data.endpoints) {
      const price = spec.get(entry.endpoint);
      expect(entry.free).toBe(price === "free");
      expect(entry.price_usd).toBe(price === "free" ? "0.00" : price);
    }
    // Probe every endpoint of the price table: listed if and only if its route exists (a priced route answers
    // 402 or 400 without payment, a free one 200/4xx, a missing one 404 with "No route").
    for (const entry of PRICE_TABLE) {
      const [method, path = ""] = entry.endpoint.split(" ");
      const res = await app.request(path.replace(/:[a-z_]+/g, "1"), { method });
      const body = (await res.json()) as { error?: { message?: string } };
      const routeMissing = res.status === 404 && (body.error?.message ?? "").startsWith("No route");
      expect(listed.has(entry.endpoint), entry.endpoint).toBe(!routeMissing);
    }
    expect(listed.has("GET /v1/pricing")).toBe(true);
    expect(listed.has("GET /v1/search")).toBe(true);
    expect(listed.has("GET /v1/companies/:id")).toBe(true);
    expect(listed.has("GET /v1/companies/:id/awards")).toBe(true);
    expect(listed.has("GET /v1/companies/:id/opportunities")).toBe(true);
    expect(listed.has("GET /v1/buyers/:id/history")).toBe(true);
  });

  it("has the spec's shape in dev mode", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { data } = (await getJson(app, "/v1/pricing")).body as unknown as PricingBody;
    expect(data.currency).toBe("USD");
    expect(data.payments_mode).toBe("dev");
    expect(data.billing).toMatchObject({
      mechanism: "prepaid_credits",
      bundles: [
        { amount_usd: "5.00", endpoint: "POST /v1/billing/credits/5" },
        { amount_usd: "10.00", endpoint: "POST /v1/billing/credits/10" },
        { amount_usd: "25.00", endpoint: "POST /v1/billing/credits/25" },
      ],
      balance_endpoint: "GET /v1/billing",
    });
    expect(typeof data.billing.usage).toBe("string");
    expect(data.subscription).toEqual({
      available: false,
      provider: "paddle",
      currency: "EUR",
      price_monthly_cents: 2900,
      price_monthly: "29.00",
      checkout_endpoint: null,
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
