import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/engines.ts";
import { insertAward, insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import { type Spawned, spawnServer, waitForListening } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

/**
 * The MCP surface of the real server process, driven by the SDK's own Client over Streamable HTTP: the tool
 * list, payment (unpaid, dev token, prepaid credits), the same answers as REST, and bad input.
 */

const TOOLS = [
  "search_tenders",
  "get_tender",
  "get_company",
  "get_company_awards",
  "get_company_opportunities",
  "get_buyer_history",
  "get_renewals",
  "get_pricing",
  "research",
  "billing_get_balance",
  "billing_purchase_credits",
];

type Envelope = { data: unknown; meta: Record<string, unknown> };

function withoutRequestId(envelope: Envelope) {
  const { request_id: _ignored, ...meta } = envelope.meta;
  return { data: envelope.data, meta };
}

describe("MCP over Streamable HTTP (the started server)", () => {
  let database: ServerDatabase;
  let server: Spawned;
  let base: string;
  let client: Client;
  let ids: { tender: number; company: number; buyer: number };

  beforeAll(async () => {
    database = await createServerDatabase();
    ids = await database.withDb(async (db) => {
      const buyer = await insertBuyer(db, "Ayuntamiento de Ejemplo");
      const company = await insertCompany(db, "Ejemplo Sistemas SL", "B12345678");
      const tender = await insertTender(db, {
        sourceRef: "mcp-tender",
        title: "Ciberseguridad",
        buyerId: buyer,
      });
      await insertAward(db, { tenderId: tender, winnerId: company, value: 1000 });
      return { tender, company, buyer };
    });
    server = spawnServer({
      ...database.env,
      CPV_LABELS: `${SHARED_DIR}data/cpv/cpv2008.csv`,
    });
    base = `http://127.0.0.1:${await waitForListening(server)}`;
    client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
    server?.child.kill("SIGTERM");
    await server?.exited;
    await database?.destroy();
  });

  async function call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
    return (await client.callTool({
      name,
      arguments: args,
      ...(meta ? { _meta: meta } : {}),
    })) as CallToolResult;
  }

  async function faucet(endpoint: string): Promise<string> {
    const res = await fetch(`${base}/v1/dev-faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { token: string }).token;
  }

  async function rest(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Envelope };
  }

  it("lists exactly the spec's 11 tools with annotations and input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.description, tool.name).toMatch(/USD|Free/);
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: tool.name !== "billing_purchase_credits",
        destructiveHint: false,
        idempotentHint: true,
      });
    }
    const search = tools.find((t) => t.name === "search_tenders");
    const props = search?.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props.size).toMatchObject({ maximum: 100, minimum: 1 });
    expect(props.payment_token).toBeDefined();
    expect(props.client_key).toBeDefined();
    expect(tools.find((t) => t.name === "get_tender")?.inputSchema.required).toEqual(["id"]);
    expect(tools.find((t) => t.name === "research")?.inputSchema.required).toEqual(["query"]);
    expect(tools.find((t) => t.name === "billing_purchase_credits")?.inputSchema.required).toEqual(
      expect.arrayContaining(["client_key", "amount"]),
    );
  });

  it("answers get_pricing for free, the same as GET /v1/pricing", async () => {
    const result = await call("get_pricing", {});
    expect(result.isError).toBeFalsy();
    const viaRest = await rest("GET", "/v1/pricing", {});
    expect(withoutRequestId(result.structuredContent as Envelope)).toEqual(withoutRequestId(viaRest.body));
  });

  const cases: {
    tool: string;
    endpoint: string;
    args: () => Record<string, unknown>;
    rest: () => [string, string, unknown?];
  }[] = [
    {
      tool: "search_tenders",
      endpoint: "GET /v1/search",
      args: () => ({ q: "ciberseguridad", size: 5 }),
      rest: () => ["GET", "/v1/search?q=ciberseguridad&size=5"],
    },
    {
      tool: "get_tender",
      endpoint: "GET /v1/tenders/:id",
      args: () => ({ id: ids.tender }),
      rest: () => ["GET", `/v1/tenders/${ids.tender}`],
    },
    {
      tool: "get_company",
      endpoint: "GET /v1/companies/:id",
      args: () => ({ id: ids.company }),
      rest: () => ["GET", `/v1/companies/${ids.company}`],
    },
    {
      tool: "get_company_awards",
      endpoint: "GET /v1/companies/:id/awards",
      args: () => ({ id: ids.company }),
      rest: () => ["GET", `/v1/companies/${ids.company}/awards`],
    },
    {
      tool: "get_company_opportunities",
      endpoint: "GET /v1/companies/:id/opportunities",
      args: () => ({ id: ids.company, size: 10 }),
      rest: () => ["GET", `/v1/companies/${ids.company}/opportunities?size=10`],
    },
    {
      tool: "get_buyer_history",
      endpoint: "GET /v1/buyers/:id/history",
      args: () => ({ id: ids.buyer }),
      rest: () => ["GET", `/v1/buyers/${ids.buyer}/history`],
    },
    {
      tool: "get_renewals",
      endpoint: "GET /v1/renewals",
      args: () => ({ window_months: 24, include_retendered: true }),
      rest: () => ["GET", "/v1/renewals?window_months=24&include_retendered=true"],
    },
    {
      tool: "research",
      endpoint: "POST /v1/research",
      args: () => ({ query: "ciberseguridad", limit: 5 }),
      rest: () => ["POST", "/v1/research", { query: "ciberseguridad", limit: 5 }],
    },
  ];

  for (const c of cases) {
    it(`${c.tool}: unpaid is payment_required content; a dev token pays; the answer equals REST's`, async () => {
      const unpaid = await call(c.tool, c.args());
      expect(unpaid.isError).toBeFalsy();
      const content = unpaid.structuredContent as Record<string, unknown> & {
        how_to_pay: Record<string, unknown>;
      };
      expect(content.payment_required).toBe(true);
      expect(content.price_usd).toMatch(/^\d+\.\d\d$/);
      expect(content.how_to_pay).toMatchObject({
        faucet: "POST /v1/dev-faucet",
        faucet_body: { endpoint: c.endpoint },
      });

      const paid = await call(c.tool, { ...c.args(), payment_token: await faucet(c.endpoint) });
      expect(paid.isError, JSON.stringify(paid.content)).toBeFalsy();
      const envelope = paid.structuredContent as Envelope;
      expect(envelope.meta).toMatchObject({ paid: true, price_usd: content.price_usd });

      const [method, path, body] = c.rest();
      const viaRest = await rest(method, path, { "X-PAYMENT": await faucet(c.endpoint) }, body);
      expect(viaRest.status).toBe(200);
      expect(withoutRequestId(envelope)).toEqual(withoutRequestId(viaRest.body));
    });
  }

  it("refuses over REST a dev token already spent over MCP, and over MCP one spent over REST", async () => {
    const token = await faucet("GET /v1/tenders/:id");
    expect((await call("get_tender", { id: ids.tender, payment_token: token })).isError).toBeFalsy();
    expect((await rest("GET", `/v1/tenders/${ids.tender}`, { "X-PAYMENT": token })).status).toBe(402);

    const other = await faucet("GET /v1/tenders/:id");
    expect((await rest("GET", `/v1/tenders/${ids.tender}`, { "X-PAYMENT": other })).status).toBe(200);
    const again = await call("get_tender", { id: ids.tender, payment_token: other });
    expect(again.structuredContent).toMatchObject({ payment_required: true });
    expect(String((again.structuredContent as { message: string }).message)).toMatch(/already been used/);
  });

  it("buys credits, reads the balance and pays with client_key", async () => {
    const key = "mcp-e2e-key-0123456789abcdef";
    const missing = await call("billing_get_balance", { client_key: key });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: "not_found" } });

    const unpaid = await call("billing_purchase_credits", { client_key: key, amount: 5 });
    expect(unpaid.structuredContent).toMatchObject({
      payment_required: true,
      price_usd: "5.00",
      how_to_pay: { faucet_body: { endpoint: "POST /v1/billing/credits/5" } },
    });
    const bought = await call("billing_purchase_credits", {
      client_key: key,
      amount: 5,
      payment_token: await faucet("POST /v1/billing/credits/5"),
    });
    expect(bought.isError, JSON.stringify(bought.content)).toBeFalsy();
    expect((bought.structuredContent as Envelope).data).toMatchObject({
      balance_cents: 500,
      credited_usd: "5.00",
    });

    const tender = await call("get_tender", { id: ids.tender, client_key: key });
    expect(tender.isError).toBeFalsy();
    expect((tender.structuredContent as Envelope).meta).toMatchObject({ paid: true, price_usd: "0.02" });

    const balance = await call("billing_get_balance", { client_key: key });
    expect((balance.structuredContent as Envelope).data).toMatchObject({
      balance_cents: 498,
      balance_usd: "4.98",
    });
    const viaRest = await rest("GET", "/v1/billing", { "x-client-key": key });
    expect(withoutRequestId(balance.structuredContent as Envelope)).toEqual(withoutRequestId(viaRest.body));
  });

  it("answers invalid arguments and unknown tools with tool errors naming the problem", async () => {
    const size = await call("search_tenders", { size: 500 });
    expect(size.isError).toBe(true);
    expect(JSON.stringify(size.content)).toMatch(/argument \\"size\\" must be an integer from 1 to 100/);
    const id = await call("get_tender", { id: 0 });
    expect(id.isError).toBe(true);
    expect(id.structuredContent).toMatchObject({ error: { code: "invalid_query" } });
    expect(JSON.stringify(id.structuredContent)).toMatch(/argument \\"id\\" must be a positive integer/);
    const missing = await call("research", {});
    expect(JSON.stringify(missing.structuredContent)).toMatch(/argument \\"query\\"/);
    const unknown = await call("no_such_tool", {});
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toMatch(/Unknown tool/);
  });

  it("answers malformed JSON-RPC, batches and GET with protocol errors", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const post = (body: string) => fetch(`${base}/mcp`, { method: "POST", headers, body });
    const parse = await post("{not json");
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    const batch = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]));
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    const invalid = await post(JSON.stringify({ hello: "world" }));
    expect(invalid.status).toBeGreaterThanOrEqual(400);
    expect(await invalid.json()).toMatchObject({ jsonrpc: "2.0", error: {} });
    const get = await fetch(`${base}/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const big = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(70_000) } }),
    );
    // The app-wide body limit refuses it before anything parses it, in the spec's error envelope (400).
    expect(big.status).toBe(400);
    expect(await big.json()).toMatchObject({
      error: { message: expect.stringMatching(/larger than 65536 bytes/) },
    });
  });

  it("serves the server card with the tools, their prices and the transports", async () => {
    const res = await fetch(`${base}/.well-known/mcp/server-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, unknown> & {
      tools: { name: string; price_usd: string | null }[];
    };
    expect(card.schemaVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(card).toMatchObject({
      name: expect.stringMatching(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
      version: "0.1.0",
      transport: { type: "sse", url: `${base}/mcp` },
      remotes: [{ type: "streamable-http", url: `${base}/mcp` }],
    });
    expect(card.tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    expect(card.tools.find((t) => t.name === "get_renewals")?.price_usd).toBe("0.25");
    expect(card.tools.find((t) => t.name === "get_pricing")?.price_usd).toBe("0.00");
  });
});
