import { isServedBy, PRICE_TABLE } from "../domain/pricing/price-table.ts";
import type { EndpointDiscovery } from "../payments/gate.ts";
import type { OpenApiDocument } from "./openapi.ts";

/**
 * What each priced endpoint takes and returns, for x402 catalog discovery (`extensions.bazaar` of the 402):
 * derived from the OpenAPI document, which is itself generated from the zod schemas that validate requests
 * and describe responses. So the catalog entry cannot drift from what the route accepts and answers, and no
 * second table of schemas or examples has to be kept.
 *
 * The schemas are trimmed to their validating keywords (no descriptions, component references inlined)
 * because x402 clients echo the declaration inside the PAYMENT-SIGNATURE header, where every byte counts.
 * Examples come from the schemas' own `example` values, otherwise from the simplest value the schema accepts.
 */

type Json = Record<string, unknown>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * Keywords kept in the published schemas: the ones that say what a value must be. `format` is left out: the
 * facilitators' validator (ajv without its formats plugin) only warns about it, once per string field.
 */
const KEPT = new Set([
  "type",
  "properties",
  "required",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "additionalProperties",
]);

const MAX_DEPTH = 12;

/** Input and output of every priced endpoint the document describes, keyed by price-table endpoint name. */
export function describePricedEndpoints(document: OpenApiDocument): Map<string, EndpointDiscovery> {
  const doc = document as unknown as Json;
  const components = asObject(asObject(doc.components).schemas);
  const described = new Map<string, EndpointDiscovery>();
  for (const [path, item] of Object.entries(asObject(doc.paths))) {
    for (const method of METHODS) {
      const operation = asObject(asObject(item)[method]);
      if (Object.keys(operation).length === 0) {
        continue;
      }
      const route = `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`;
      // One route may sell several price-table entries (`POST /v1/billing/credits/:amount` → /5, /10, /25).
      const priced = PRICE_TABLE.filter((entry) => !entry.free && isServedBy(entry.endpoint, [route]));
      if (priced.length === 0) {
        continue;
      }
      const discovery = describeOperation(operation, components);
      for (const entry of priced) {
        described.set(entry.endpoint, discovery);
      }
    }
  }
  return described;
}

function describeOperation(operation: Json, components: Json): EndpointDiscovery {
  const discovery: EndpointDiscovery = {};
  const query = (Array.isArray(operation.parameters) ? operation.parameters : [])
    .map(asObject)
    .filter((p) => p.in === "query" && typeof p.name === "string");
  if (query.length > 0) {
    const properties: Json = {};
    const required: string[] = [];
    const example: Json = {};
    for (const parameter of query) {
      const name = String(parameter.name);
      const schema = inline(asObject(parameter.schema), components, 0);
      properties[name] = trim(schema);
      const given = parameter.example ?? schema.example;
      if (parameter.required === true) {
        required.push(name);
        example[name] = given ?? exampleOf(schema, components, 0);
      } else if (given !== undefined) {
        example[name] = given;
      }
    }
    discovery.query = { example, schema: required.length > 0 ? { properties, required } : { properties } };
  }
  const body = contentSchema(operation.requestBody);
  if (body) {
    const schema = inline(body, components, 0);
    const example = exampleOf(schema, components, 0);
    discovery.body = { example: asObject(example), schema: trim(schema) };
  }
  const output = contentSchema(asObject(operation.responses)["200"]);
  if (output) {
    const schema = inline(output, components, 0);
    discovery.output = { example: asObject(exampleOf(schema, components, 0)), schema: trim(schema) };
  }
  return discovery;
}

function contentSchema(holder: unknown): Json | undefined {
  const schema = asObject(asObject(asObject(asObject(holder).content)["application/json"]).schema);
  return Object.keys(schema).length > 0 ? schema : undefined;
}

/** Replaces `#/components/schemas/…` references by the schema they name (the result stands alone). */
function inline(schema: Json, components: Json, depth: number): Json {
  if (depth > MAX_DEPTH) {
    return {};
  }
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    return inline(asObject(components[name]), components, depth + 1);
  }
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties") {
      result.properties = Object.fromEntries(
        Object.entries(asObject(value)).map(([name, sub]) => [
          name,
          inline(asObject(sub), components, depth + 1),
        ]),
      );
    } else if (key === "items" || key === "additionalProperties") {
      result[key] =
        typeof value === "object" && value !== null ? inline(asObject(value), components, depth + 1) : value;
    } else if (key === "anyOf" || key === "oneOf" || key === "allOf") {
      result[key] = (Array.isArray(value) ? value : []).map((sub) =>
        inline(asObject(sub), components, depth + 1),
      );
    } else {
      result[key] = value;
    }
  }
  return result;
}

/** Keeps only validating keywords, recursively. */
function trim(schema: Json): Json {
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key)) {
      continue;
    }
    if (key === "properties") {
      result.properties = Object.fromEntries(
        Object.entries(asObject(value)).map(([n, s]) => [n, trim(asObject(s))]),
      );
    } else if (
      (key === "items" || key === "additionalProperties") &&
      typeof value === "object" &&
      value !== null
    ) {
      result[key] = trim(asObject(value));
    } else if (key === "anyOf" || key === "oneOf" || key === "allOf") {
      result[key] = (Array.isArray(value) ? value : []).map((s) => trim(asObject(s)));
    } else {
      result[key] = value;
    }
  }
  return result;
}

const FORMAT_EXAMPLES: Record<string, string> = {
  date: "2025-07-18",
  "date-time": "2025-07-18T09:30:00.000Z",
  uri: "https://example.org/notice",
  url: "https://example.org/notice",
  uuid: "00000000-0000-4000-8000-000000000000",
  email: "buyer@example.org",
};

/** A value the schema accepts: its own example when it has one, else the simplest (non-null) one. */
function exampleOf(schema: Json, components: Json, depth: number): unknown {
  if (schema.example !== undefined) {
    return schema.example;
  }
  if (schema.const !== undefined) {
    return schema.const;
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum[0];
  }
  if (schema.default !== undefined) {
    return schema.default;
  }
  const branches = [schema.anyOf, schema.oneOf].find(Array.isArray);
  if (Array.isArray(branches)) {
    const pick = branches.map(asObject).find((b) => b.type !== "null") ?? asObject(branches[0]);
    return exampleOf(pick, components, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    // One object made of all the parts: a part may require a property that another part declares (an
    // extended schema requires what its base left optional).
    const parts = schema.allOf.map(asObject);
    const merged: Json = {
      type: "object",
      properties: Object.assign({}, ...parts.map((part) => asObject(part.properties))),
      required: [...new Set(parts.flatMap((part) => (Array.isArray(part.required) ? part.required : [])))],
    };
    return exampleOf(merged, components, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== "null") ?? types[0];
  if (depth > MAX_DEPTH) {
    return null;
  }
  switch (type) {
    case "object": {
      // Required properties only: optional ones would make the example (echoed in headers) longer, not
      // clearer.
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      return Object.fromEntries(
        Object.entries(asObject(schema.properties))
          .filter(([name]) => required.has(name))
          .map(([name, sub]) => [name, exampleOf(asObject(sub), components, depth + 1)]),
      );
    }
    case "array":
      return schema.items ? [exampleOf(asObject(schema.items), components, depth + 1)] : [];
    case "string": {
      const text =
        typeof schema.format === "string" ? (FORMAT_EXAMPLES[schema.format] ?? "string") : "string";
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      const max = typeof schema.maxLength === "number" ? schema.maxLength : text.length;
      return text.padEnd(min, "x").slice(0, Math.max(min, max));
    }
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return null;
  }
}

function asObject(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}
