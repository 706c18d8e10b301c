import fc from "fast-check";

/**
 * Bad input drawn from a schema: values outside a parameter's constraints (read from the app's own OpenAPI
 * document or an MCP tool's input schema, so new routes and tools are covered without editing a test) and
 * hostile strings that no schema anticipates.
 */

/** The subset of JSON Schema the API's parameters use. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
}

/** One operation of the OpenAPI document with what a request to it carries. */
export interface Operation {
  method: string;
  /** The OpenAPI path template, e.g. `/v1/tenders/{id}`. */
  path: string;
  /** `METHOD /path` as the price table names endpoints. */
  name: string;
  params: { name: string; in: "query" | "path" | "header"; required: boolean; schema: JsonSchema }[];
  /** The JSON body schema, `$ref`s resolved one level; null when the operation takes no JSON body. */
  body: JsonSchema | null;
  bodyRequired: boolean;
  /** Has a `security` requirement: the operation is paid for. */
  priced: boolean;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}
interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}

/** Every operation of an OpenAPI 3.1 document. */
export function operationsOf(document: unknown): Operation[] {
  const doc = document as OpenApiDoc;
  const resolve = (schema: JsonSchema | undefined): JsonSchema | null => {
    if (schema === undefined) {
      return null;
    }
    if (schema.$ref) {
      const name = schema.$ref.replace("#/components/schemas/", "");
      return doc.components?.schemas?.[name] ?? null;
    }
    return schema;
  };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      const params = (op.parameters ?? [])
        .filter((p): p is typeof p & { in: "query" | "path" | "header" } =>
          ["query", "path", "header"].includes(p.in),
        )
        .map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          schema: resolve(p.schema) ?? {},
        }));
      const json = op.requestBody?.content?.["application/json"];
      out.push({
        method: upper,
        path,
        name: `${upper} ${path.replace(/\{(\w+)\}/g, ":$1")}`,
        params,
        body: resolve(json?.schema),
        bodyRequired: op.requestBody?.required === true,
        priced: (op.security?.length ?? 0) > 0,
      });
    }
  }
  return out;
}

/** A value the schema accepts, for the parameters a draw does not spoil. */
export function validValue(schema: JsonSchema): unknown {
  if (schema.example !== undefined) {
    return schema.example;
  }
  if (schema.examples?.[0] !== undefined) {
    return schema.examples[0];
  }
  if (schema.default !== undefined) {
    return schema.default;
  }
  if (schema.enum?.[0] !== undefined) {
    return schema.enum[0];
  }
  const type = typeOf(schema);
  if (type === "integer" || type === "number") {
    return schema.minimum ?? 1;
  }
  if (type === "boolean") {
    return false;
  }
  if (type === "object") {
    return Object.fromEntries(
      (schema.required ?? []).map((name) => [name, validValue(schema.properties?.[name] ?? {})]),
    );
  }
  return "x".repeat(Math.max(schema.minLength ?? 1, 1));
}

function typeOf(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
}

/**
 * The API coerces numbers (`z.coerce.number`: a query string is text, and MCP clients send "5" for 5), so
 * whatever JavaScript's `Number()` reads as a number in range (" 5", "1e1", "0x10", true, [5]) is a lenient
 * reading, not bad input. Draws that coerce to a valid number are not "outside the constraints".
 */
function coercesIntoRange(value: unknown, schema: JsonSchema): boolean {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return false;
  }
  const n = Number(value);
  if (!Number.isFinite(n) || (typeOf(schema) === "integer" && !Number.isInteger(n))) {
    return false;
  }
  return (
    (schema.minimum === undefined || n >= schema.minimum) &&
    (schema.maximum === undefined || n <= schema.maximum) &&
    Math.abs(n) <= Number.MAX_SAFE_INTEGER
  );
}

/** An ISO calendar date that exists (2024-02-29 does, 2025-02-29 does not). */
function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return false;
  }
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** Whether a string (as a query, path or header value carries it) satisfies the schema. */
export function stringSatisfies(value: string, schema: JsonSchema): boolean {
  const type = typeOf(schema);
  if (schema.enum) {
    return schema.enum.map(String).includes(value);
  }
  if (type === "integer" || type === "number") {
    return coercesIntoRange(value, schema);
  }
  if (type === "boolean") {
    return value === "true" || value === "false";
  }
  return jsonStringSatisfies(value, schema);
}

function jsonStringSatisfies(value: string, schema: JsonSchema): boolean {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    return false;
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return false;
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
    return false;
  }
  if (schema.format === "date" && !isCalendarDate(value)) {
    return false;
  }
  if (schema.format === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) {
    return false;
  }
  return true;
}

/** Whether a JSON value (a body field, an MCP argument) satisfies the schema. */
export function jsonSatisfies(value: unknown, schema: JsonSchema): boolean {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    return alternatives.some((s) => jsonSatisfies(value, s));
  }
  if (schema.enum) {
    return schema.enum.includes(value) || schema.enum.map(String).includes(String(value));
  }
  const type = typeOf(schema);
  if (type === "integer" || type === "number") {
    return coercesIntoRange(value, schema);
  }
  if (type === "boolean") {
    return typeof value === "boolean";
  }
  if (type === "string") {
    return typeof value === "string" && jsonStringSatisfies(value, schema);
  }
  return true;
}

/** Text that must never break a server, whatever parameter carries it. */
export const HOSTILE_TEXT: readonly string[] = [
  "' OR '1'='1",
  "'; DROP TABLE tenders; --",
  "1; SELECT pg_sleep(10)--",
  "\\'; COPY (SELECT '') TO PROGRAM 'id'; --",
  "$1",
  "%",
  "_%_",
  "\\",
  "\u0000",
  "a\u0000b",
  "\u0000\u0000\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u0645\u0631\u062d\u0628\u0627",
  "😀".repeat(100),
  "x".repeat(10_000),
  "é".repeat(10_000),
  "../../../../etc/passwd",
  "<script>alert(1)</script>",
  '{"$gt": ""}',
  "NaN",
  "-0",
  "1e999",
  "9".repeat(400),
  "   ",
  "\t\n\r",
  "\u0085\u2028\u2029",
  "null",
  "[]",
];

/** Query-string or path fragments that are not valid percent-encoded UTF-8, sent as they are. */
export const INVALID_ESCAPES: readonly string[] = [
  "%",
  "%%",
  "%zz",
  "%G0",
  "%FF",
  "%C3%28",
  "%E0%80%80",
  "%ED%A0%80",
  "%F8%88%80%80%80",
  "%C0%AF",
  "%00",
  "a%00b",
  "%0d%0aSet-Cookie:%20x=1",
  "%25%32%35",
];

/** Percent-encodes a string for a URL; lone surrogates (not encodable) become their UTF-8 replacement. */
export function encode(value: string): string {
  return encodeURIComponent(wellFormed(value));
}

/** The string with each lone surrogate replaced by U+FFFD (what a UTF-8 encoder sends for it). */
export function wellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** A hostile value for any string parameter, already in URL form. */
export const hostileUrlValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT).map(encode),
  fc.constantFrom(...INVALID_ESCAPES),
  fc.string({ unit: "binary", maxLength: 300 }).map(encode),
  fc
    .tuple(fc.constantFrom(...INVALID_ESCAPES), fc.string({ maxLength: 20 }))
    .map(([invalid, tail]) => `${invalid}${encode(tail)}`),
);

/**
 * Strings outside a string-carried parameter's constraints (query, path, header), as raw text. Every draw
 * is checked against the schema, so what comes out is invalid by construction.
 */
export function invalidString(schema: JsonSchema): fc.Arbitrary<string> | null {
  const type = typeOf(schema);
  const constrained =
    type === "integer" ||
    type === "number" ||
    type === "boolean" ||
    schema.enum !== undefined ||
    schema.pattern !== undefined ||
    schema.format !== undefined ||
    schema.minLength !== undefined ||
    schema.maxLength !== undefined;
  if (!constrained) {
    // Any text is valid (an operator key, a signature): only hostile strings apply.
    return null;
  }
  const candidates: fc.Arbitrary<string>[] = [
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...HOSTILE_TEXT),
    fc.string({ unit: "grapheme", maxLength: 20 }),
  ];
  if (type === "integer" || type === "number") {
    const lo = schema.minimum ?? Number.MIN_SAFE_INTEGER;
    const hi = schema.maximum ?? Number.MAX_SAFE_INTEGER;
    candidates.push(
      fc.integer({ min: -1_000_000, max: lo - 1 }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map(String),
      fc.constantFrom("1.5", "0.1", "-1", "0", "", "one", "Infinity", "1/2", "1,5", "١٢", "2**3"),
      fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
    );
    if (hi < Number.MAX_SAFE_INTEGER) {
      candidates.push(fc.integer({ min: hi + 1, max: hi + 1_000_000 }).map(String));
    }
  }
  if (schema.enum) {
    candidates.push(
      fc.constantFrom(...schema.enum.map(String)).map((v) => `${v} `),
      fc.constantFrom(...schema.enum.map(String)).map((v) => v.toUpperCase()),
    );
  }
  if (schema.maxLength !== undefined) {
    const max = schema.maxLength;
    candidates.push(fc.integer({ min: max + 1, max: max + 40 }).map((n) => "a".repeat(n)));
  }
  if (schema.minLength !== undefined && schema.minLength > 0) {
    candidates.push(fc.string({ maxLength: schema.minLength - 1 }));
  }
  if (schema.pattern !== undefined || schema.format !== undefined) {
    candidates.push(
      fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 16 }),
      fc.constantFrom(
        "2025-02-30",
        "2025-13-01",
        "2025-1-1",
        "20250101",
        "2025-01-01T00:00:00Z",
        "0000-00-00",
      ),
      fc.constantFrom("7", "123456789", "72000000-55", "E5", "ES51234", "e", "1"),
    );
  }
  if (type === "boolean") {
    candidates.push(fc.constantFrom("yes", "no", "1", "0", "TRUE", "True", "on", ""));
  }
  return fc.oneof(...candidates).filter((value) => !stringSatisfies(value, schema));
}

/** JSON values outside a body field's or tool argument's constraints. */
export function invalidJson(schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = typeOf(schema);
  const candidates: fc.Arbitrary<unknown>[] = [
    fc.constantFrom(null, true, false, [], {}, [1, 2], { a: 1 }, -1, 0, 1.5, 1e300, ""),
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...HOSTILE_TEXT),
    fc.integer(),
  ];
  if (type === "string") {
    candidates.push(fc.double(), fc.array(fc.string(), { maxLength: 3 }));
    if (schema.maxLength !== undefined) {
      const max = schema.maxLength;
      candidates.push(fc.integer({ min: max + 1, max: max + 40 }).map((n) => "b".repeat(n)));
    }
    if (schema.minLength !== undefined && schema.minLength > 0) {
      candidates.push(fc.string({ maxLength: schema.minLength - 1 }));
    }
  }
  if (type === "integer" || type === "number") {
    candidates.push(
      fc.integer({ min: -1_000_000, max: (schema.minimum ?? 1) - 1 }),
      fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
      fc.constantFrom("1.5", "one", "Infinity", "", "0"),
    );
    if (schema.maximum !== undefined) {
      candidates.push(fc.integer({ min: schema.maximum + 1, max: schema.maximum + 1_000_000 }));
    }
  }
  return fc.oneof(...candidates).filter((value) => !jsonSatisfies(value, schema));
}
