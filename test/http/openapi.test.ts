import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { findPrice, isServedBy, PRICE_TABLE } from "../../src/domain/pricing/price-table.ts";
import { buildTestApp, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";

const t = useTestDb();

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  "x-price-usd"?: string;
  "x-prices-usd"?: Record<string, string>;
}
type Document = {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { allOf?: unknown[] }> };
};

async function fetchDocument(env: Record<string, string> = {}) {
  const { app } = buildTestApp({ db: t.db, env });
  const { res, body } = await getJson(app, "/openapi.json");
  expect(res.status).toBe(200);
  return { app, document: body as unknown as Document };
}

function operations(document: Document) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      endpoint: `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`,
      operation,
    })),
  );
}

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1.0 document (checked by a standard validator)", async () => {
    const { document } = await fetchDocument();
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("0.1.0");
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    // The validator is not a rubber stamp: the same document with a broken operation fails.
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, unknown>> };
    broken.paths["/v1/pricing"] = { get: { responses: "none" } };
    expect(
      (await new Validator().validate(broken as unknown as Parameters<Validator["validate"]>[0])).valid,
    ).toBe(false);
  });

  it("documents every route the app serves, and nothing it does not", async () => {
    const { app, document } = await fetchDocument();
    const served = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
    const documented = operations(document).map((o) => o.endpoint);
    expect([...documented].sort()).toEqual([...new Set(served)].sort());
  });

  it("marks paid operations with the paymentSignature scheme and the price of the price table", async () => {
    const { document } = await fetchDocument();
    expect(document.components.securitySchemes.paymentSignature).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "PAYMENT-SIGNATURE",
    });
    for (const { endpoint, operation } of operations(document)) {
      const entry = findPrice(endpoint);
      // One route may sell several price-table entries (the credit bundles: `:amount` is 5, 10 or 25).
      const sold = PRICE_TABLE.filter(
        (e) => !e.free && e.endpoint !== endpoint && isServedBy(e.endpoint, [endpoint]),
      );
      if (!entry && sold.length > 0) {
        // A purchase is paid by x402 (or a dev token) for the account x-client-key names; never from a balance.
        expect(operation.security, endpoint).toEqual([
          { paymentSignature: [], clientKey: [] },
          { xPayment: [], clientKey: [] },
        ]);
        expect(operation["x-prices-usd"], endpoint).toEqual(
          Object.fromEntries(
            sold.map((e) => [e.endpoint.split("/").at(-1), (e.priceCents / 100).toFixed(2)]),
          ),
        );
        expect(Object.keys(operation.responses), endpoint).toEqual(
          expect.arrayContaining(["200", "400", "402", "429", "500"]),
        );
      } else if (entry && !entry.free) {
        // Any one of the three ways to pay (OpenAPI ORs the requirement objects).
        expect(operation.security, endpoint).toEqual([
          { paymentSignature: [] },
          { xPayment: [] },
          { clientKey: [] },
        ]);
        expect(operation["x-price-usd"], endpoint).toBe((entry.priceCents / 100).toFixed(2));
        const statuses = ["200", "400", "402", "429", "500", ...(endpoint.includes(":id") ? ["404"] : [])];
        expect(Object.keys(operation.responses), endpoint).toEqual(expect.arrayContaining(statuses));
      } else {
        expect(operation.security, endpoint).toBeUndefined();
      }
    }
  });

  it("documents error responses with the Error schema on every operation", async () => {
    const { document } = await fetchDocument();
    expect(document.components.schemas.PaymentRequired?.allOf?.[0]).toEqual({
      $ref: "#/components/schemas/Error",
    });
    for (const { endpoint, operation } of operations(document)) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length, endpoint).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        if (endpoint === "GET /health") {
          continue; // health answers its own body with 503
        }
        // A 402 is the error envelope plus the x402 terms: PaymentRequired = allOf [Error, {…}].
        expect(response.content?.["application/json"]?.schema?.$ref, `${endpoint} ${status}`).toBe(
          status === "402" ? "#/components/schemas/PaymentRequired" : "#/components/schemas/Error",
        );
      }
    }
  });

  it("uses the configured public base URL as server, or the request origin", async () => {
    expect((await fetchDocument()).document.servers).toEqual([{ url: "http://localhost" }]);
    const configured = await fetchDocument({ PUBLIC_BASE_URL: "https://api.example.org/" });
    expect(configured.document.servers).toEqual([{ url: "https://api.example.org" }]);
  });

  it("does not document the faucet in x402 mode, where it does not exist", async () => {
    const { app, document } = await fetchDocument({ PAYMENTS_MODE: "x402" });
    expect(document.paths["/v1/dev-faucet"]).toBeUndefined();
    const res = await app.request("/v1/dev-faucet", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "GET /v1/tenders/:id" }),
    });
    expect(res.status).toBe(404);
  });
});
