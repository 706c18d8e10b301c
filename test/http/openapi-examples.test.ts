import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiExamples } from "../../scripts/openapi-examples/build.ts";
import { serialiseExamples } from "../../scripts/openapi-examples/serialise.ts";
import { EXAMPLES_FILE, type ExamplesFile } from "../../src/http/openapi-examples.ts";
import { listTools } from "../../src/mcp/tools.ts";
import { buildTestApp, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { SHARED_DIR } from "../helpers/engines.ts";

/**
 * The OpenAPI examples are real answers: the shared fixtures ingested through the real pipeline, each route
 * called through the real app (scripts/openapi-examples/). Regenerating them here, on this run's engine, must
 * give the committed file, so an example cannot drift from what the service answers. One ingest for the file.
 */

const t = useTestDb();
let regenerated: ExamplesFile;

beforeAll(async () => {
  regenerated = await buildOpenApiExamples({ db: t.db, sharedDir: SHARED_DIR });
});

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema: Json; example?: unknown }[];
  requestBody?: { content: Record<string, { schema: Json; examples?: Record<string, { value: unknown }> }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: Json; examples?: Record<string, { value: unknown }> }> }
  >;
}

/** Every route served: dev mode (the faucet), with the subscription and the operator statistics configured. */
async function servedDocument() {
  const { app } = buildTestApp({
    db: t.db,
    env: {
      OPERATOR_KEY: "an-operator-key-of-some-length",
      MOR_API_URL: "http://127.0.0.1:9",
      MOR_API_KEY: "pdl_apikey_test",
      MOR_PRICE_ID: "pri_01test",
      MOR_WEBHOOK_SECRET: "pdl_ntfset_test_secret",
    },
  });
  const { res, body } = await getJson(app, "/openapi.json");
  expect(res.status).toBe(200);
  const document = body as unknown as { paths: Record<string, Record<string, Operation>> };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation,
    })),
  );
  return { document, operations };
}

/** Statuses whose answer an example shows: success and the errors a caller acts on (not 500 or 503). */
const EXAMPLE_STATUSES = ["200", "400", "401", "402", "403", "404", "429"];

describe("OpenAPI examples", () => {
  it("are what the service answers now (run `npm run openapi-examples` after a change in behaviour)", () => {
    const committed = JSON.parse(readFileSync(EXAMPLES_FILE, "utf8")) as ExamplesFile;
    expect(regenerated).toEqual(committed);
    expect(serialiseExamples(regenerated)).toBe(readFileSync(EXAMPLES_FILE, "utf8"));
  });

  it("show fixture notices, not invented ones", () => {
    expect(regenerated.fixtures).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^fixtures\/placsp\/.+\.atom$/),
        expect.stringMatching(/^fixtures\/ted\/.+\.xml$/),
      ]),
    );
    const fixtures = regenerated.fixtures
      .map((file) => readFileSync(`${SHARED_DIR}${file}`, "utf8"))
      .join("\n");
    const search = regenerated.operations.search?.responses["200"]?.value as {
      data: { tender_source_ref: string }[];
    };
    const tender = regenerated.operations.getTender?.responses["200"]?.value as {
      data: { source_ref: string };
    };
    expect(search.data.length).toBeGreaterThan(0);
    // PLACSP references are the entries' ids; TED ones the publication number (00611835-2024 → 611835-2024).
    for (const ref of [...search.data.map((row) => row.tender_source_ref), tender.data.source_ref]) {
      expect(fixtures.includes(ref), `${ref} is in no fixture`).toBe(true);
    }
  });

  it("give every operation a request example (when it takes input) and its answers' examples", async () => {
    const { operations } = await servedDocument();
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const { name, operation } of operations) {
      const parameters = operation.parameters ?? [];
      if (parameters.length > 0) {
        expect(
          parameters.some((p) => p.example !== undefined),
          `${name}: no parameter example`,
        ).toBe(true);
      }
      if (operation.requestBody) {
        const examples = operation.requestBody.content["application/json"]?.examples;
        expect(Object.keys(examples ?? {}), `${name}: no body example`).toHaveLength(1);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!EXAMPLE_STATUSES.includes(status)) {
          continue;
        }
        const examples = Object.values(response.content ?? {}).flatMap((media) =>
          Object.values(media.examples ?? {}),
        );
        expect(examples.length, `${name} ${status}: no example`).toBe(1);
      }
    }
  });

  it("each validate against the schema they illustrate", async () => {
    const { document, operations } = await servedDocument();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    // Components are referenced as #/components/schemas/…: the document is the root they resolve in.
    ajv.addSchema({ ...document, $id: "openapi.json" } as Json);
    const validate = (schema: Json, value: unknown, where: string) => {
      const check = ajv.compile(rebase(schema));
      const valid = check(value);
      expect(check.errors ?? [], where).toEqual([]);
      expect(valid, where).toBe(true);
    };
    let checked = 0;
    for (const { name, operation } of operations) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.example !== undefined) {
          validate(parameter.schema, parameter.example, `${name} parameter ${parameter.name}`);
          checked += 1;
        }
      }
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        for (const example of Object.values(media.examples ?? {})) {
          validate(media.schema, example.value, `${name} body ${type}`);
          checked += 1;
        }
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          for (const example of Object.values(media.examples ?? {})) {
            validate(media.schema, example.value, `${name} ${status} ${type}`);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(80);
    // The validator is not a rubber stamp: a success example with a field of the wrong type fails.
    const search = operations.find((o) => o.operation.operationId === "search")?.operation;
    const schema = search?.responses["200"]?.content?.["application/json"]?.schema ?? {};
    const broken = structuredClone(regenerated.operations.search?.responses["200"]?.value) as {
      data: { id: unknown }[];
    };
    (broken.data[0] as { id: unknown }).id = "one";
    expect(ajv.compile(rebase(schema))(broken)).toBe(false);
  });

  it("give each MCP tool an example call", () => {
    expect(Object.keys(regenerated.tools).sort()).toEqual(
      listTools()
        .map((tool) => tool.name)
        .sort(),
    );
  });
});

/** A schema of the document, its `#/components/…` references made to point into the document added above. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"openapi.json#/')) as Json;
}
