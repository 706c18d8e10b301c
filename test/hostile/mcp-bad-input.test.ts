import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp } from "../helpers/app.ts";
import { accountState, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertAward, insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import { HOSTILE_TEXT, invalidJson, type JsonSchema, jsonSatisfies, validValue } from "../helpers/hostile.ts";
import { listen, type RawResponse, rawRequest } from "../helpers/raw-http.ts";

/**
 * Bad MCP tool arguments, drawn from each tool's input schema as `tools/list` gives it (a tool added later is
 * covered without editing this file), sent as `tools/call` over POST /mcp on a real socket, each bounded in
 * time. An argument outside its constraints is an `isError: true` tool result naming it (`invalid_query`),
 * refused before payment (a funded client_key sent with it is not debited); hostile strings never produce an
 * internal error or a 5xx, paid or not; a malformed `tools/call` is a JSON-RPC error that does not call itself
 * internal.
 */

/** A property makes hundreds of requests or several full ingest runs: more than the default 30 s on a loaded machine. */
const PROPERTY_TIMEOUT_MS = 180_000;
const RUNS = { invalidArgs: 250, hostile: 250, malformed: 40 } as const;
const REQUEST_TIMEOUT_MS = 5_000;
const SPENDING_KEY = "mcp-spending-key-0123456789abc";
const UNTOUCHED_KEY = "mcp-untouched-key-0123456789abc";
const FUNDS_CENTS = 1_000_000;

interface ToolListing {
  name: string;
  inputSchema: JsonSchema & { properties?: Record<string, JsonSchema> };
}

const t = useTestDb();
let api: { port: number; close(): Promise<void> };
let tools: ToolListing[];
const answered = new Map<string, number>();
let rpcId = 0;

beforeAll(async () => {
  const buyer = await insertBuyer(t.db, "Ayuntamiento de Ejemplo");
  const company = await insertCompany(t.db, "Ejemplo Sistemas SL", "B12345678");
  const tender = await insertTender(t.db, {
    sourceRef: "mcp-hostile",
    title: "Ciberseguridad",
    buyerId: buyer,
  });
  await insertAward(t.db, { tenderId: tender, winnerId: company, value: 1000 });
  await seedAccount(t.db, SPENDING_KEY, { cents: FUNDS_CENTS });
  await seedAccount(t.db, UNTOUCHED_KEY, { cents: FUNDS_CENTS });
  const { app } = buildTestApp({ db: t.db });
  api = await listen(app.fetch);
  const listing = await rpc("tools/list", {});
  tools = (listing.json.result as { tools: ToolListing[] }).tools;
});

afterAll(async () => {
  await api?.close();
  const figures = [...answered.entries()].sort().map(([kind, n]) => `${kind}: ${n}`);
  console.info(`MCP bad-input calls answered: ${figures.join(", ")}`);
});

interface RpcAnswer {
  res: RawResponse;
  json: { result?: unknown; error?: { code: number; message: string } };
}

async function rpc(method: string, params: unknown): Promise<RpcAnswer> {
  return post(JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }));
}

async function post(body: string): Promise<RpcAnswer> {
  const res = await rawRequest(
    api.port,
    {
      method: "POST",
      target: "/mcp",
      headers: [
        ["content-type", "application/json"],
        ["accept", "application/json, text/event-stream"],
      ],
      body,
    },
    REQUEST_TIMEOUT_MS,
  );
  const what = `POST /mcp ${body.slice(0, 200)} → ${res.status} ${res.body.toString("utf8").slice(0, 300)}`;
  expect(res.status, what).toBeLessThan(500);
  const json = JSON.parse(res.body.toString("utf8")) as RpcAnswer["json"];
  const kind = json.error
    ? `JSON-RPC error ${json.error.code}`
    : (json.result as { isError?: boolean }).isError
      ? `isError ${((json.result as ToolResult).structuredContent?.error?.code ?? "?") as string}`
      : (json.result as ToolResult).structuredContent?.payment_required
        ? "payment_required"
        : "data";
  answered.set(kind, (answered.get(kind) ?? 0) + 1);
  return { res, json };
}

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: {
    error?: { code: string; message: string; hint?: string };
    payment_required?: boolean;
  };
}

function validArgs(tool: ToolListing): Record<string, unknown> {
  return Object.fromEntries(
    (tool.inputSchema.required ?? []).map((name) => [
      name,
      validValue(tool.inputSchema.properties?.[name] ?? {}),
    ]),
  );
}

async function callTool(name: string, args: unknown): Promise<ToolResult> {
  const { json } = await rpc("tools/call", { name, arguments: args });
  expect(
    json.error,
    `${name} ${JSON.stringify(args).slice(0, 200)}: ${JSON.stringify(json.error)}`,
  ).toBeUndefined();
  return json.result as ToolResult;
}

describe("MCP tool arguments outside their constraints (from tools/list)", {
  timeout: PROPERTY_TIMEOUT_MS,
}, () => {
  it("lists tools with input schemas", () => {
    expect(tools.length).toBeGreaterThanOrEqual(11);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
    }
  });

  it("answers each with an isError result naming the argument, before payment is taken", async () => {
    const slots = tools.flatMap((tool) =>
      Object.entries(tool.inputSchema.properties ?? {}).map(([name, schema]) => ({
        tool,
        name,
        schema,
        required: tool.inputSchema.required?.includes(name) === true,
      })),
    );
    expect(slots.length).toBeGreaterThanOrEqual(30);
    const drawn = fc
      .record({ slot: fc.constantFrom(...slots), omit: fc.boolean(), pay: fc.boolean() })
      .chain(({ slot, omit, pay }) =>
        omit && slot.required
          ? fc.constant({ slot, pay, value: undefined as unknown })
          : invalidJson(slot.schema).map((value) => ({ slot, pay, value })),
      );
    await fc.assert(
      fc.asyncProperty(drawn, async ({ slot, pay, value }) => {
        const args: Record<string, unknown> = { ...validArgs(slot.tool) };
        // A funded key goes with the invalid argument when the tool takes one and it is not the spoiled one.
        if (pay && slot.name !== "client_key" && slot.tool.inputSchema.properties?.client_key) {
          args.client_key = UNTOUCHED_KEY;
        }
        if (value === undefined) {
          delete args[slot.name];
        } else {
          args[slot.name] = value;
        }
        const what = `${slot.tool.name} ${slot.name}=${JSON.stringify(value)?.slice(0, 100)}`;
        const result = await callTool(slot.tool.name, args);
        expect(result.isError, what).toBe(true);
        expect(result.structuredContent?.error?.code, what).toBe("invalid_query");
        expect(result.structuredContent?.error?.message, what).toContain(`argument "${slot.name}"`);
        expect(result.structuredContent?.error?.hint, what).toBeTruthy();
        expect(result.content[0]?.text, what).toContain(slot.name);
      }),
      { numRuns: RUNS.invalidArgs },
    );
    const untouched = await accountState(t.db, UNTOUCHED_KEY);
    expect(untouched).toMatchObject({ balance_cents: FUNDS_CENTS, ledger_cents: FUNDS_CENTS });
  });

  it("never answers hostile strings with an internal error, paid or not", async () => {
    const slots = tools.flatMap((tool) =>
      Object.entries(tool.inputSchema.properties ?? {})
        .filter(([name]) => name !== "client_key")
        .map(([name, schema]) => ({ tool, name, schema })),
    );
    const hostile = fc.oneof(
      fc.constantFrom(...HOSTILE_TEXT),
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.string({ unit: "grapheme", maxLength: 50 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...slots), hostile, fc.boolean(), async (slot, value, pay) => {
        const args: Record<string, unknown> = { ...validArgs(slot.tool), [slot.name]: value };
        if (pay && slot.tool.inputSchema.properties?.client_key) {
          args.client_key = SPENDING_KEY;
        }
        const what = `${pay ? "paid " : ""}${slot.tool.name} ${slot.name}=${JSON.stringify(value).slice(0, 100)}`;
        const result = await callTool(slot.tool.name, args);
        if (result.isError) {
          expect(result.structuredContent?.error?.code, `${what}: ${result.content[0]?.text}`).not.toBe(
            "internal",
          );
          if (!jsonSatisfies(value, slot.schema)) {
            expect(result.structuredContent?.error?.message, what).toContain(`"${slot.name}"`);
          }
        }
      }),
      { numRuns: RUNS.hostile },
    );
    const spent = await accountState(t.db, SPENDING_KEY);
    expect(spent?.ledger_cents).toBe(spent?.balance_cents);
  });

  it("answers a malformed tools/call with a JSON-RPC invalid-params error, never an internal one", async () => {
    const names = fc.oneof(fc.constantFrom(...tools.map((tool) => tool.name)), fc.constant("no_such_tool"));
    const notAnObject = fc.oneof(
      fc.constantFrom(null, 7, "id=1", true, [1], [{ id: 1 }]),
      fc.array(fc.anything(), { maxLength: 3 }),
    );
    const params = fc.oneof(
      fc.record({ name: names, arguments: notAnObject }),
      fc.record({
        name: fc.oneof(fc.integer(), fc.constant(null), fc.constant([])),
        arguments: fc.constant({}),
      }),
      notAnObject,
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(params, async (value) => {
        const { json, res } = await rpc("tools/call", value);
        const what = `tools/call ${JSON.stringify(value)?.slice(0, 120)} → ${res.body.toString().slice(0, 200)}`;
        expect(json.error, what).toBeDefined();
        expect(json.error?.code, what).toBe(-32602);
        expect(json.error?.message, what).toMatch(/params|arguments|name/);
      }),
      { numRuns: RUNS.malformed },
    );
  });
});
