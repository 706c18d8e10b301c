import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS, ErrorSchema } from "../../src/http/errors.ts";
import { buildTestApp, devToken } from "../helpers/app.ts";
import { accountState, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertAward, insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import {
  encode,
  HOSTILE_TEXT,
  hostileUrlValue,
  invalidJson,
  invalidString,
  type JsonSchema,
  type Operation,
  operationsOf,
  validValue,
} from "../helpers/hostile.ts";
import {
  PADDLE_TEST_KEY,
  PADDLE_TEST_PRICE,
  PADDLE_TEST_SECRET,
  type PaddleServer,
  startPaddleServer,
} from "../helpers/paddle-server.ts";
import { listen, type RawRequest, type RawResponse, rawRequest } from "../helpers/raw-http.ts";

/**
 * Bad input over every REST route, read from the app's own OpenAPI document (GET /openapi.json), so a route
 * added later is covered without editing this file. Requests go over a real socket to the app served as
 * the real server serves it, each bounded in time (a hang fails the test).
 *
 * - A parameter, header or body field outside its constraints is a 400 `invalid_query` naming it, and it is
 *   refused before payment: a funded client key or a dev token sent with it is neither debited nor spent.
 * - Hostile strings (SQL, 10k characters, invalid UTF-8 escapes, NUL, repeated parameters, huge and deep
 *   bodies, malformed request lines) are answered with a 4xx in the error envelope when unpaid, and never
 *   with a 5xx when paid for (then they reach the database).
 */

/** Draws per property (fast-check `numRuns`); see the report in docs/decisions.md for the budget. */
/** A property makes hundreds of requests or several full ingest runs: more than the default 30 s on a loaded machine. */
const PROPERTY_TIMEOUT_MS = 180_000;
const RUNS = { invalidParams: 300, invalidBodies: 150, hostileUnpaid: 300, hostilePaid: 300 } as const;
const REQUEST_TIMEOUT_MS = 5_000;

const OPERATOR_KEY = "operator-key-0123456789abcdef";
/** Pays every priced call of the hostile-but-valid property. */
const SPENDING_KEY = "hostile-spending-key-0123456789";
/** Sent with invalid input only: its balance must never move. */
const UNTOUCHED_KEY = "hostile-untouched-key-0123456789";
const FUNDS_CENTS = 1_000_000;

const t = useTestDb();
let paddle: PaddleServer;
let api: { port: number; close(): Promise<void> };
let operations: Operation[];
/** One dev token per priced endpoint, sent with invalid input only: each must still pay afterwards. */
const tokens = new Map<string, string>();
/** Answers by status, for the closing figures. */
const answered = new Map<number, number>();

beforeAll(async () => {
  const buyer = await insertBuyer(t.db, "Ayuntamiento de Ejemplo");
  const company = await insertCompany(t.db, "Ejemplo Sistemas SL", "B12345678");
  const tender = await insertTender(t.db, {
    sourceRef: "hostile-1",
    title: "Ciberseguridad",
    buyerId: buyer,
  });
  await insertAward(t.db, { tenderId: tender, winnerId: company, value: 1000 });
  await seedAccount(t.db, SPENDING_KEY, { cents: FUNDS_CENTS });
  await seedAccount(t.db, UNTOUCHED_KEY, { cents: FUNDS_CENTS });
  paddle = await startPaddleServer();
  const { app } = buildTestApp({
    db: t.db,
    env: {
      OPERATOR_KEY,
      MOR_API_URL: paddle.url,
      MOR_API_KEY: PADDLE_TEST_KEY,
      MOR_PRICE_ID: PADDLE_TEST_PRICE,
      MOR_WEBHOOK_SECRET: PADDLE_TEST_SECRET,
    },
  });
  api = await listen(app.fetch);
  const doc = await send({ method: "GET", target: "/openapi.json" });
  expect(doc.status).toBe(200);
  operations = operationsOf(JSON.parse(doc.body.toString("utf8")));
  for (const op of operations.filter((o) => o.priced && !o.path.includes("credits"))) {
    tokens.set(op.name, await devToken(app, op.name));
  }
});

afterAll(async () => {
  await api?.close();
  await paddle?.close();
  const figures = [...answered.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.info(`REST bad-input requests answered by status: ${figures.join(", ")}`);
});

async function send(request: RawRequest): Promise<RawResponse> {
  const res = await rawRequest(api.port, request, REQUEST_TIMEOUT_MS);
  answered.set(res.status, (answered.get(res.status) ?? 0) + 1);
  return res;
}

type ErrorBody = { error: { code: keyof typeof ERROR_STATUS; message: string; hint?: string } };

/** The answer is a 4xx (or, when `allowOk`, a 2xx) and every error is in the spec's envelope. */
function expectClean(res: RawResponse, what: string, allowOk = false): ErrorBody | null {
  const text = res.body.toString("utf8");
  const context = `${what} → ${res.status} ${text.slice(0, 300)}`;
  if (allowOk && res.status >= 200 && res.status < 300) {
    return null;
  }
  expect(res.status, context).toBeGreaterThanOrEqual(400);
  expect(res.status, context).toBeLessThan(500);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${context}: the error body is not JSON`);
  }
  expect(ErrorSchema.safeParse(body).success, context).toBe(true);
  const error = (body as ErrorBody).error;
  expect(ERROR_STATUS[error.code], context).toBe(res.status);
  return body as ErrorBody;
}

/** The request line target of `op` with its path parameters and query pairs (values already URL-encoded). */
function targetOf(op: Operation, path: Record<string, string>, query: [string, string][]): string {
  const filled = op.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => path[name] ?? encode(String(valid(op, name))),
  );
  const search = query.map(([name, value]) => `${encode(name)}=${value}`).join("&");
  return search === "" ? filled : `${filled}?${search}`;
}

function valid(op: Operation, name: string): unknown {
  return validValue(op.params.find((p) => p.name === name)?.schema ?? {});
}

/** Headers every request to `op` needs to be valid apart from what a draw spoils. */
function requiredHeaders(op: Operation, except?: string): [string, string][] {
  return op.params
    .filter((p) => p.in === "header" && p.required && p.name !== except)
    .map((p) => [p.name, String(validValue(p.schema))]);
}

function validBody(op: Operation): Record<string, unknown> {
  return op.body ? (validValue(op.body) as Record<string, unknown>) : {};
}

/** Payment sent with invalid input: it must be refused before either is taken. */
function paymentHeaders(op: Operation, pay: "key" | "token" | "none"): [string, string][] {
  if (!op.priced || pay === "none") {
    return [];
  }
  const token = tokens.get(op.name);
  if (pay === "token" && token) {
    return [["x-payment", token]];
  }
  // The credit purchase names its account in x-client-key (a required parameter, never debited).
  return op.params.some((p) => p.name === "x-client-key") ? [] : [["x-client-key", UNTOUCHED_KEY]];
}

/** A header value as it can travel: Latin-1, no control characters, no surrounding whitespace. */
function headerSafe(value: string): boolean {
  return value !== "" && value === value.trim() && /^[\x20-\x7e\x80-\xff\t]*$/.test(value);
}

/** A URL-form value as text: decoded where it is valid percent-encoding, as is where it is not. */
function decodeLoosely(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A URL-form value made fit to travel as a header value (what cannot be sent becomes "?"). */
function decodeForHeader(value: string): string {
  const safe = decodeLoosely(value)
    .replace(/[^\x20-\x7e\x80-\xff]/g, "?")
    .trim();
  return safe === "" ? "?" : safe;
}

function bodyRequest(op: Operation, target: string, body: string, headers: [string, string][] = []) {
  return {
    method: op.method,
    target,
    headers: [["content-type", "application/json"], ...requiredHeaders(op), ...headers] as [string, string][],
    body,
  };
}

describe("REST parameters outside their constraints (from GET /openapi.json)", {
  timeout: PROPERTY_TIMEOUT_MS,
}, () => {
  it("covers every operation of the document", () => {
    // The document lists the routes this app serves: pricing, search, the paid reads, billing, MCP card…
    expect(operations.length).toBeGreaterThanOrEqual(20);
    expect(operations.filter((o) => o.priced).length).toBeGreaterThanOrEqual(8);
  });

  it("answers each with a 400 naming the parameter, before payment is asked or taken", async () => {
    const targets = operations.flatMap((op) =>
      op.params.flatMap((param) => {
        const arb = invalidString(param.schema);
        return arb ? [{ op, param, arb: arb.filter((v) => encode(v).length < 4_000) }] : [];
      }),
    );
    expect(targets.length).toBeGreaterThanOrEqual(20);
    const draw = fc.record({
      target: fc.constantFrom(...targets),
      pay: fc.constantFrom("key" as const, "token" as const, "none" as const),
    });
    const drawn = draw.chain(({ target, pay }) =>
      target.arb
        .filter((value) =>
          target.param.in === "header" ? headerSafe(value) : target.param.in === "path" ? value !== "" : true,
        )
        .map((value) => ({ op: target.op, param: target.param, pay, value })),
    );
    await fc.assert(
      fc.asyncProperty(drawn, async ({ op, param, pay, value }) => {
        const headers = [...requiredHeaders(op, param.name), ...paymentHeaders(op, pay)];
        const query: [string, string][] = [];
        const path: Record<string, string> = {};
        if (param.in === "query") {
          query.push([param.name, encode(value)]);
        } else if (param.in === "path") {
          path[param.name] = encode(value);
        } else {
          headers.push([param.name, value]);
        }
        const request: RawRequest = { method: op.method, target: targetOf(op, path, query), headers };
        if (op.body) {
          request.body = JSON.stringify(validBody(op));
          headers.push(["content-type", "application/json"]);
        }
        const what = `${op.name} with ${param.in} ${param.name}=${JSON.stringify(value).slice(0, 80)}`;
        const body = expectClean(await send(request), what);
        expect(body?.error.code, what).toBe("invalid_query");
        expect(body?.error.message, what).toContain(`"${param.name}"`);
        expect(body?.error.hint, what).toBeTruthy();
      }),
      { numRuns: RUNS.invalidParams },
    );
  });

  it("answers body fields outside their constraints with a 400 naming the field", async () => {
    const withBody = operations.filter((op) => op.body?.properties);
    const fields = withBody.flatMap((op) =>
      Object.entries(op.body?.properties ?? {}).map(([name, schema]) => ({ op, name, schema })),
    );
    expect(fields.length).toBeGreaterThanOrEqual(3);
    const drawn = fc
      .record({
        field: fc.constantFrom(...fields),
        pay: fc.constantFrom("key" as const, "token" as const, "none" as const),
        omit: fc.boolean(),
      })
      .chain(({ field, pay, omit }) => {
        const required = field.op.body?.required?.includes(field.name) === true;
        // Leaving out a required field is invalid too; leaving out an optional one is not.
        return omit && required
          ? fc.constant({ ...field, pay, value: undefined as unknown })
          : invalidJson(field.schema as JsonSchema).map((value) => ({ ...field, pay, value }));
      });
    await fc.assert(
      fc.asyncProperty(drawn, async ({ op, name, schema, pay, value }) => {
        const body = { ...validBody(op), [name]: value };
        const target = targetOf(op, {}, []);
        const what = `${op.name} with body field ${name}=${JSON.stringify(value)?.slice(0, 80)} (${JSON.stringify(schema).slice(0, 80)})`;
        const answer = expectClean(
          await send(bodyRequest(op, target, JSON.stringify(body), paymentHeaders(op, pay))),
          what,
        );
        expect(answer?.error.code, what).toBe("invalid_query");
        expect(answer?.error.message, what).toContain(`"${name}"`);
      }),
      { numRuns: RUNS.invalidBodies },
    );
  });

  it("answers bodies that are not the JSON object asked for with a 400", async () => {
    const withBody = operations.filter((op) => op.body !== null);
    expect(withBody.length).toBeGreaterThanOrEqual(3);
    const garbage = fc.oneof(
      fc.constantFrom(
        "",
        "{",
        "}",
        "{bad",
        "null",
        "[]",
        "42",
        '"text"',
        "true",
        '{"a":',
        "\u0000",
        "\ufeff{}",
      ),
      fc.json().filter((text) => !text.startsWith("{")),
      fc.constantFrom(
        `${"[".repeat(30_000)}${"]".repeat(30_000)}`,
        `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`,
      ),
      fc.constantFrom(JSON.stringify({ query: "x".repeat(70_000) }), "x".repeat(2_000_000)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withBody), garbage, fc.boolean(), async (op, body, jsonType) => {
        const request = bodyRequest(op, targetOf(op, {}, []), body, paymentHeaders(op, "key"));
        if (!jsonType) {
          request.headers[0] = ["content-type", "text/plain"];
        }
        const what = `${op.name} with body ${JSON.stringify(body.slice(0, 60))} (${request.headers[0]?.[1]})`;
        const answer = expectClean(await send(request), what);
        expect(answer?.error.code, what).toBe("invalid_query");
      }),
      { numRuns: 60 },
    );
  });

  it("never debited the key nor spent a token sent with invalid input", async () => {
    const state = await accountState(t.db, UNTOUCHED_KEY);
    expect(state).toMatchObject({ balance_cents: FUNDS_CENTS, ledger_cents: FUNDS_CENTS });
    const { rows } = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM api_calls");
    expect(rows[0]?.n).toBe(0);
    // Each token still pays one valid call of its endpoint.
    for (const op of operations.filter((o) => tokens.has(o.name))) {
      const request = op.body
        ? bodyRequest(op, targetOf(op, {}, []), JSON.stringify(validBody(op)), [
            ["x-payment", tokens.get(op.name) ?? ""],
          ])
        : {
            method: op.method,
            target: targetOf(op, {}, []),
            headers: [["x-payment", tokens.get(op.name) ?? ""]] as [string, string][],
          };
      const res = await send(request);
      expect(res.status, `${op.name}: ${res.body.toString().slice(0, 200)}`).toBeLessThan(300);
    }
  });
});

describe("REST hostile strings", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it("refuses a NUL in a text parameter with a 400 that costs nothing (it was a 500 after payment)", async () => {
    const before = await accountState(t.db, SPENDING_KEY);
    for (const target of [
      "/v1/search?buyer=a%00b",
      "/v1/search?company=%00%00",
      "/v1/renewals?buyer=%00ab",
    ]) {
      const res = await send({ method: "GET", target, headers: [["x-client-key", SPENDING_KEY]] });
      const body = expectClean(res, target);
      expect(body?.error.message).toMatch(/must be text without NUL characters/);
    }
    const research = await send({
      method: "POST",
      target: "/v1/research",
      headers: [
        ["content-type", "application/json"],
        ["x-client-key", SPENDING_KEY],
      ],
      body: JSON.stringify({ query: "ciber\u0000seguridad" }),
    });
    expect(expectClean(research, "research")?.error.message).toMatch(/"query" must be text without NUL/);
    expect(await accountState(t.db, SPENDING_KEY)).toEqual(before);
  });

  function paramOf(slot: { op: Operation; in: string; name: string }) {
    return slot.op.params.find((p) => p.name === slot.name && p.in === slot.in);
  }

  /** Every parameter of every operation, and the body fields, as places a hostile value can go. */
  function slots() {
    return operations.flatMap((op) => [
      ...op.params.map((param) => ({ op, in: param.in as string, name: param.name })),
      ...Object.keys(op.body?.properties ?? {}).map((name) => ({ op, in: "body", name })),
    ]);
  }

  async function sendHostile(
    slot: { op: Operation; in: string; name: string },
    value: string,
    repeat: boolean,
    paid: boolean,
  ): Promise<RawResponse> {
    const { op } = slot;
    const headers = requiredHeaders(op, slot.name);
    if (paid && op.priced && !op.params.some((p) => p.name === "x-client-key")) {
      headers.push(["x-client-key", SPENDING_KEY]);
    }
    const query: [string, string][] = [];
    const path: Record<string, string> = {};
    let body: string | undefined;
    if (slot.in === "query") {
      query.push([slot.name, value]);
      if (repeat) {
        query.push([slot.name, value]);
      }
    } else if (slot.in === "path") {
      path[slot.name] = value;
    } else if (slot.in === "header") {
      headers.push([slot.name, decodeForHeader(value)]);
    } else {
      body = JSON.stringify({ ...validBody(op), [slot.name]: decodeLoosely(value) });
    }
    if (op.body && body === undefined) {
      body = JSON.stringify(validBody(op));
    }
    if (body !== undefined) {
      headers.push(["content-type", "application/json"]);
    }
    return send({ method: op.method, target: targetOf(op, path, query), headers, body });
  }

  it("answers hostile values in any parameter with a 4xx in the envelope when unpaid", async () => {
    const all = slots();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...all),
        hostileUrlValue,
        fc.boolean(),
        async (slot, value, repeat) => {
          const res = await sendHostile(slot, value, repeat, false);
          const what = `${slot.op.name} ${slot.in} ${slot.name}=${value.slice(0, 80)}${repeat ? " (twice)" : ""}`;
          // Free routes may serve a hostile but valid value (a 200); the rest is a clean refusal.
          expectClean(res, what, !slot.op.priced);
        },
      ),
      { numRuns: RUNS.hostileUnpaid },
    );
  });

  it("never answers a hostile value with a 5xx when the call is paid and reaches the database", async () => {
    const all = slots().filter((slot) => slot.op.priced);
    // Free-text parameters take most hostile text as valid: those draws reach the SQL.
    const freeText = all.filter((slot) => {
      const schema = slot.in === "body" ? slot.op.body?.properties?.[slot.name] : paramOf(slot)?.schema;
      return schema?.type === "string" && !schema.pattern && !schema.enum && !schema.format;
    });
    expect(freeText.length).toBeGreaterThanOrEqual(4);
    const validText = fc
      .oneof(fc.constantFrom(...HOSTILE_TEXT), fc.string({ unit: "binary", minLength: 2, maxLength: 200 }))
      .filter((text) => [...text].length <= 200 && text.trim().length >= 2)
      .map(encode);
    const drawn = fc.oneof(
      fc.tuple(fc.constantFrom(...all), hostileUrlValue, fc.boolean()),
      fc.tuple(fc.constantFrom(...freeText), validText, fc.constant(false)),
    );
    await fc.assert(
      fc.asyncProperty(drawn, async ([slot, value, repeat]) => {
        const res = await sendHostile(slot, value, repeat, true);
        const what = `paid ${slot.op.name} ${slot.in} ${slot.name}=${value.slice(0, 80)}${repeat ? " (twice)" : ""}`;
        expectClean(res, what, true);
      }),
      { numRuns: RUNS.hostilePaid },
    );
    // Whatever was served was paid once, whatever failed was not: the ledger still adds up.
    const state = await accountState(t.db, SPENDING_KEY);
    expect(state?.ledger_cents).toBe(state?.balance_cents);
  });

  it("answers malformed requests that Node's parser refuses in the envelope too", async () => {
    const requests: RawRequest[] = [
      { method: "GET", target: "/v1/search?q=a b" },
      { method: "GET", target: "/v1/search?q=\u0000" },
      { method: "GET", target: "/v1/tenders/\u00f1" },
      { method: "GET", target: "/v1/search", headers: [["x-client-key", "a\u0001b"]] },
      { method: "GET", target: "/v1/search", headers: [["x-big", "x".repeat(20_000)]] },
      { method: "GET", target: "/v1/search", headers: [["bad header", "1"]] },
      {
        method: "POST",
        target: "/v1/research",
        headers: [
          ["content-length", "5"],
          ["transfer-encoding", "chunked"],
        ],
        body: "0\r\n\r\n",
      },
      {
        method: "POST",
        target: "/v1/research",
        headers: [
          ["content-length", "2"],
          ["content-length", "3"],
        ],
        body: "{}",
      },
      { method: "G\u0000ET", target: "/" },
      // Refused by the adapter (no Request can be built): asterisk-form, a backslash, an unusable absolute URL.
      { method: "GET", target: "*" },
      { method: "GET", target: "/v1\\search" },
      { method: "GET", target: "http://[bad/v1/search" },
    ];
    for (const request of requests) {
      const res = await send(request);
      const body = expectClean(res, `${request.method} ${JSON.stringify(request.target)}`);
      expect(body?.error.code).toBe("invalid_query");
    }
  });

  it("answers requests to paths and methods no route serves with a 404 or 405 in the envelope", async () => {
    const targets = fc.oneof(
      fc.constantFrom("/", "//", "/v1", "/v1/", "/v1/tenders", "/v1/tenders/", "/v1/../v1/search", "*"),
      fc.constantFrom(...operations).map((op) => `${op.path.replace(/\{\w+\}/g, "1")}/extra`),
      hostileUrlValue.map((value) => `/v1/${value}`),
    );
    const methods = fc.constantFrom(
      "GET",
      "POST",
      "PUT",
      "DELETE",
      "PATCH",
      "OPTIONS",
      "HEAD",
      "TRACE",
      "FOO",
    );
    await fc.assert(
      fc.asyncProperty(targets, methods, async (target, method) => {
        const res = await send({ method, target });
        if (method === "HEAD" || method === "OPTIONS") {
          // No body to check: HEAD never has one, OPTIONS is CORS preflight (204).
          expect(res.status, `${method} ${target}`).toBeLessThan(500);
          return;
        }
        expectClean(res, `${method} ${target}`, true);
      }),
      { numRuns: 150 },
    );
  });
});
