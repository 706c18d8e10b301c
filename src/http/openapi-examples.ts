import { readFileSync } from "node:fs";
import type { OpenApiDocument } from "./openapi.ts";

/**
 * Request and response examples of the OpenAPI document, and the example calls of llms.txt. They are not
 * written by hand: `npm run openapi-examples` ingests the shared PLACSP and TED fixtures into a fresh database
 * through the real ingestion pipeline, calls every route through the real app and writes what it sent and what
 * came back to `openapi-examples.json` beside this file (scripts/openapi-examples/). A test regenerates the
 * file in memory and compares, so an example cannot drift from what the service answers.
 */

/** One request as the generator sent it: path, query and header parameters with their JSON types, and a body. */
export interface ExampleRequest {
  path?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ExampleResponse {
  /** The key of the example in the OpenAPI `examples` map. */
  name: string;
  /** The call that produced it (`GET /v1/tenders/8`) and how it was made. */
  summary: string;
  contentType: string;
  value: unknown;
}

export interface OperationExamples {
  /** The price-table style endpoint (`GET /v1/tenders/:id`). */
  endpoint: string;
  /** The request of the success example. */
  request: ExampleRequest;
  /** The success example's request as one line (`GET /v1/tenders/8`), for llms.txt. */
  call: string;
  /** By HTTP status: the success answer and the main errors. */
  responses: Record<string, ExampleResponse>;
}

export interface ExamplesFile {
  $comment: string;
  /** The clock the service ran on while the examples were made. */
  clock: string;
  base_url: string;
  /** Fixture files ingested, relative to the shared directory. */
  fixtures: string[];
  /** By operationId. */
  operations: Record<string, OperationExamples>;
  /** Answers every operation shares (the rate limiter's 429), by HTTP status. */
  shared: Record<string, ExampleResponse>;
  /** MCP tools: one example call each (arguments without payment), verified against POST /mcp. */
  tools: Record<string, { arguments: Record<string, unknown> }>;
}

export const EXAMPLES_FILE = new URL("./openapi-examples.json", import.meta.url);

let loaded: ExamplesFile | undefined;

/** The committed examples (read once). */
export function openApiExamples(): ExamplesFile {
  loaded ??= JSON.parse(readFileSync(EXAMPLES_FILE, "utf8")) as ExamplesFile;
  return loaded;
}

type Json = Record<string, unknown>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * The document with the examples in place: each parameter of the success request gets `example` (the other
 * parameters lose their schema's illustrative one), a JSON body its media type's `examples`, and each
 * documented response status with an example its media type's `examples`. Operations or statuses without an
 * example are left as they are. The input is not modified.
 */
export function withExamples(document: OpenApiDocument, examples: ExamplesFile): OpenApiDocument {
  const result = structuredClone(document) as unknown as Json;
  for (const item of Object.values(asObject(result.paths))) {
    for (const method of METHODS) {
      const operation = asObject(asObject(item)[method]);
      const found = examples.operations[String(operation.operationId)];
      if (!found) {
        continue;
      }
      attachRequest(operation, found.request);
      const responses = asObject(operation.responses);
      for (const [status, response] of Object.entries(responses)) {
        const example = found.responses[status] ?? examples.shared[status];
        if (example) {
          attachResponse(asObject(response), example);
        }
      }
    }
  }
  return result as unknown as OpenApiDocument;
}

function attachRequest(operation: Json, request: ExampleRequest): void {
  const given: Record<string, Record<string, unknown> | undefined> = {
    path: request.path,
    query: request.query,
    header: lowerCaseKeys(request.headers),
  };
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters.map(asObject) : []) {
    const name = String(parameter.name);
    const values = given[String(parameter.in)];
    const value = values?.[parameter.in === "header" ? name.toLowerCase() : name];
    if (value !== undefined) {
      parameter.example = value;
    } else {
      // A format illustration ("ES51") would otherwise join the request that renderers build from the
      // examples (Scalar's code samples), which then no longer matches the example answers.
      delete asObject(parameter.schema).example;
    }
  }
  const media = asObject(asObject(asObject(operation.requestBody).content)["application/json"]);
  if (request.body !== undefined && Object.keys(media).length > 0) {
    media.examples = { request: { value: request.body } };
  }
}

function attachResponse(response: Json, example: ExampleResponse): void {
  const media = asObject(asObject(response.content)[example.contentType]);
  if (Object.keys(media).length > 0) {
    media.examples = { [example.name]: { summary: example.summary, value: example.value } };
  }
}

function lowerCaseKeys(values: Record<string, string> | undefined): Record<string, string> | undefined {
  return values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
}

function asObject(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}
