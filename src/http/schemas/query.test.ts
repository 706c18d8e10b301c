import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../env.ts";
import { validationHook } from "../validation.ts";
import { IdParamSchema } from "./common.ts";
import { PageQuerySchema, RenewalsQuerySchema, SearchQuerySchema } from "./query.ts";

/**
 * The spec's parameter limits, checked through the same validation hook the app uses: every violation is a 400
 * `invalid_query` whose message names the parameter and whose hint says how to fix it.
 */
function appWith(query: z.ZodType, path = "/probe") {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({
      method: "get",
      path,
      request: { query: query as z.ZodObject },
      responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } },
    }),
    (c) => c.json({ ok: true, query: c.req.valid("query") } as never, 200),
  );
  return app;
}

async function call(app: OpenAPIHono<AppEnv>, url: string) {
  const res = await app.request(url);
  return {
    status: res.status,
    body: (await res.json()) as { error?: { code: string; message: string; hint?: string } },
  };
}

const search = appWith(SearchQuerySchema);

describe("search parameters", () => {
  it.each([
    ["size=0", "size", /integer from 1 to 100 \(got "0"\)/],
    ["size=101", "size", /integer from 1 to 100 \(got "101"\)/],
    ["size=abc", "size", /integer from 1 to 100/],
    ["size=2.5", "size", /integer from 1 to 100/],
    ["page=0", "page", /integer of at least 1/],
    ["page=-3", "page", /integer of at least 1/],
    [`q=${"a".repeat(201)}`, "q", /at most 200 characters/],
    ["buyer=a", "buyer", /at least 2 characters/],
    [`buyer=${"b".repeat(201)}`, "buyer", /at most 200 characters/],
    ["company=x", "company", /at least 2 characters/],
    [`company=${"c".repeat(201)}`, "company", /at most 200 characters/],
    ["cpv=7", "cpv", /2 to 8 digits/],
    ["cpv=123456789", "cpv", /2 to 8 digits/],
    ["cpv=72000000-55", "cpv", /2 to 8 digits/],
    ["cpv=72a", "cpv", /2 to 8 digits/],
    ["region=E", "region", /NUTS code/],
    ["region=ES5111", "region", /NUTS code/],
    ["region=1S", "region", /NUTS code/],
    ["from=2025-13-01", "from", /YYYY-MM-DD/],
    ["from=2025-02-30", "from", /YYYY-MM-DD/],
    ["to=31/01/2025", "to", /YYYY-MM-DD/],
    ["from=2025-05-01&to=2025-04-01", "to", /on or after from/],
    ["type=notice", "type", /one of award \| tender \| contract/],
  ])("%s -> 400 naming %s", async (qs, name, constraint) => {
    const { status, body } = await call(search, `/probe?${qs}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe("invalid_query");
    expect(body.error?.message).toContain(`"${name}"`);
    expect(body.error?.message).toMatch(constraint);
    expect(body.error?.hint).toMatch(new RegExp(name));
  });

  it.each([
    "",
    "size=1",
    "size=100",
    "page=1",
    `q=${"a".repeat(200)}`,
    "buyer=ab",
    `company=${"c".repeat(200)}`,
    "cpv=72",
    "cpv=72000000",
    "cpv=72000000-5",
    "region=ES",
    "region=es511",
    "from=2024-02-29&to=2024-02-29",
    "type=contract",
  ])("accepts the boundary %s", async (qs) => {
    expect((await call(search, `/probe?${qs}`)).status).toBe(200);
  });

  it("applies the defaults: type award, page 1, size 20", async () => {
    const res = await search.request("/probe");
    expect(((await res.json()) as { query: unknown }).query).toEqual({ type: "award", page: 1, size: 20 });
  });

  it("names every violated parameter at once", async () => {
    const { body } = await call(search, "/probe?size=0&page=0");
    expect(body.error?.message).toContain('"size"');
    expect(body.error?.message).toContain('"page"');
  });
});

describe("renewals and paging parameters", () => {
  const renewals = appWith(RenewalsQuerySchema);
  const paging = appWith(PageQuerySchema);

  it.each([
    ["window_months=0", "window_months", /integer from 1 to 36/],
    ["window_months=37", "window_months", /integer from 1 to 36/],
    ["window_months=x", "window_months", /integer from 1 to 36/],
    ["min_confidence=certain", "min_confidence", /low \| medium \| high/],
    ["buyer=z", "buyer", /at least 2/],
  ])("%s -> 400 naming %s", async (qs, name, constraint) => {
    const { status, body } = await call(renewals, `/probe?${qs}`);
    expect(status).toBe(400);
    expect(body.error?.message).toContain(`"${name}"`);
    expect(body.error?.message).toMatch(constraint);
  });

  it("defaults window_months to 12", async () => {
    const res = await renewals.request("/probe");
    expect(((await res.json()) as { query: { window_months: number } }).query.window_months).toBe(12);
  });

  it("validates page and size on paged routes", async () => {
    expect((await call(paging, "/probe?size=101")).status).toBe(400);
    expect((await call(paging, "/probe?page=0")).status).toBe(400);
    expect((await call(paging, "/probe?page=3&size=5")).status).toBe(200);
  });
});

describe("id path parameter", () => {
  const ids = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  ids.openapi(
    createRoute({
      method: "get",
      path: "/things/{id}",
      request: { params: IdParamSchema },
      responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } },
    }),
    (c) => c.json({ id: c.req.valid("param").id } as never, 200),
  );

  it.each(["0", "-1", "1.5", "abc", "99999999999999999999"])("id=%s -> 400, not 404", async (id) => {
    const { status, body } = await call(ids, `/things/${id}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe("invalid_query");
    expect(body.error?.message).toContain('path parameter "id"');
  });

  it("accepts a positive integer", async () => {
    expect((await call(ids, "/things/42")).status).toBe(200);
  });
});
