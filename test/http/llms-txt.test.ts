import { describe, expect, it } from "vitest";
import { PRICE_TABLE } from "../../src/domain/pricing/price-table.ts";
import { openApiExamples } from "../../src/http/openapi-examples.ts";
import { listTools } from "../../src/mcp/tools.ts";
import { buildTestApp } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";

const t = useTestDb();

async function llms(env: Record<string, string> = {}) {
  const { app } = buildTestApp({ db: t.db, env });
  const res = await app.request("/llms.txt");
  return { res, text: await res.text() };
}

describe("GET /llms.txt", () => {
  it("follows llmstxt.org: H1, summary blockquote, then H2 link lists", async () => {
    const { res, text } = await llms();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const lines = text.split("\n");
    expect(lines[0]).toBe("# procurement-intel");
    expect(lines[2]?.startsWith("> ")).toBe(true);
    const h2 = lines.filter((l) => l.startsWith("## "));
    expect(h2).toEqual(["## Discovery", "## Paid endpoints", "## Free endpoints", "## MCP tools"]);
    expect(lines.filter((l) => l.startsWith("#") && !l.startsWith("##"))).toHaveLength(1);
  });

  it("states the spec's discovery order", async () => {
    const { text } = await llms();
    const order = ["GET /llms.txt", "GET /openapi.json", "GET /v1/pricing"].map((s) => text.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("lists each served paid endpoint with its price from the price table", async () => {
    const { text } = await llms({ PUBLIC_BASE_URL: "https://api.example.org" });
    const tender = PRICE_TABLE.find((e) => e.endpoint === "GET /v1/tenders/:id");
    expect(text).toContain(`- GET /v1/tenders/:id: ${((tender?.priceCents ?? 0) / 100).toFixed(2)} USD.`);
    expect(text).toContain("- [GET /v1/pricing](https://api.example.org/v1/pricing): free.");
    expect(text).toContain("- [GET /v1/renewals](https://api.example.org/v1/renewals): 0.25 USD.");
    expect(text).toContain("- GET /v1/companies/:id/opportunities: 0.10 USD.");
    expect(text).toContain("meta.score_explanation");
    expect(text).toContain("- [POST /v1/research](https://api.example.org/v1/research): 0.50 USD.");
  });

  it("lists the MCP endpoint and every tool with its price", async () => {
    const { text } = await llms({ PUBLIC_BASE_URL: "https://api.example.org" });
    expect(text).toContain("- [POST /mcp](https://api.example.org/mcp): Streamable-HTTP MCP server");
    expect(text).toContain("https://api.example.org/.well-known/mcp/server-card.json");
    expect(text).toContain("- [get_renewals](https://api.example.org/mcp): 0.25 USD.");
    expect(text).toContain("- [research](https://api.example.org/mcp): 0.50 USD.");
    expect(text).toContain("- [get_pricing](https://api.example.org/mcp): free.");
    expect(text).toContain("- [billing_get_balance](https://api.example.org/mcp): free.");
    expect(text).toContain("- [billing_purchase_credits](https://api.example.org/mcp): priced by amount.");
    expect(text.match(/^- \[[a-z_]+\]\(https:\/\/api\.example\.org\/mcp\)/gm)).toHaveLength(11);
  });

  it("gives every endpoint and every tool one example call: the real calls of the OpenAPI examples", async () => {
    // Every route served: the subscription and the operator statistics configured too.
    const { app } = buildTestApp({
      db: t.db,
      env: {
        OPERATOR_KEY: "an-operator-key-of-some-length",
        MOR_API_KEY: "pdl_apikey_test",
        MOR_PRICE_ID: "pri_01test",
        MOR_WEBHOOK_SECRET: "pdl_ntfset_test_secret",
      },
    });
    const text = await (await app.request("/llms.txt")).text();
    const document = (await (await app.request("/openapi.json")).json()) as { paths: Record<string, object> };
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item));
    const section = (title: string) =>
      text
        .split(`## ${title}\n`)[1]
        ?.split("\n\n")[0]
        ?.split("\n")
        .filter((line) => line.startsWith("- ")) ?? [];
    const endpoints = [...section("Paid endpoints"), ...section("Free endpoints")];
    expect(endpoints).toHaveLength(operations.length);
    for (const line of endpoints) {
      expect(line).toMatch(/ Example: `(GET|POST) \/[^`]+`$/);
    }
    const examples = openApiExamples();
    expect(text).toContain(`Example: \`${examples.operations.search?.call}\``);
    expect(text).toContain(`Example: \`${examples.operations.research?.call}\``);
    const tools = section("MCP tools").filter((line) => !line.startsWith("- [POST /mcp]"));
    expect(tools).toHaveLength(listTools().length);
    for (const tool of listTools()) {
      const call = JSON.stringify({ name: tool.name, arguments: examples.tools[tool.name]?.arguments });
      expect(tools.find((line) => line.startsWith(`- [${tool.name}]`))).toContain(
        ` Example (tools/call params): \`${call}\``,
      );
    }
  });

  it("explains how to pay in the configured mode", async () => {
    expect((await llms()).text).toContain("POST /v1/dev-faucet");
    const x402 = (await llms({ PAYMENTS_MODE: "x402" })).text;
    expect(x402).not.toContain("dev-faucet");
    expect(x402).toContain("PAYMENT-SIGNATURE");
  });
});
