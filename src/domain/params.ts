import { z } from "zod";

/**
 * The spec's parameter limits (SPEC.md, Limits) as zod schemas: one definition each, shared by the verbs' input
 * schemas, which the REST routes and the MCP tools both validate with, so a limit cannot differ between
 * surfaces. Descriptions are `.meta()` so both the OpenAPI document and the tools' JSON Schema carry them.
 * Numbers are coerced: REST query strings and MCP JSON numbers both arrive as numbers.
 */

/** Positive integer record id; anything else (0, -1, 1.5, abc) is invalid input, never a not-found. */
export const IdParam = z.coerce
  .number({ error: "a positive integer" })
  .int({ error: "a positive integer" })
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .meta({ type: "integer", minimum: 1, example: 1 });

export const PageParam = z.coerce
  .number({ error: "an integer of at least 1" })
  .int({ error: "an integer of at least 1" })
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .default(1)
  .meta({ type: "integer", minimum: 1, default: 1, description: "1-based page number." });

export const SizeParam = z.coerce
  .number({ error: "an integer from 1 to 100" })
  .int({ error: "an integer from 1 to 100" })
  .min(1)
  .max(100)
  .default(20)
  .meta({ type: "integer", minimum: 1, maximum: 100, default: 20, description: "Rows per page." });

const CPV_FORMAT = "2 to 8 digits, optionally followed by '-' and one check digit (e.g. 72 or 72000000-5)";
export const CpvParam = z
  .string()
  .regex(/^\d{2,8}(-\d)?$/, { error: CPV_FORMAT })
  .meta({ example: "72", description: `CPV code or prefix: ${CPV_FORMAT}; 72 matches 72*.` });

const REGION_FORMAT = "a NUTS code or prefix: two letters then up to 3 letters or digits (e.g. ES or ES511)";
export const RegionParam = z
  .string()
  .regex(/^[A-Za-z]{2}[A-Za-z0-9]{0,3}$/, { error: REGION_FORMAT })
  .meta({ example: "ES51", description: REGION_FORMAT });

/**
 * PostgreSQL `text` cannot hold U+0000: a NUL in a text parameter would fail its query with a 500 after the
 * payment gate, so every free-text parameter refuses it up front as invalid input (a 400 that costs nothing).
 */
export const NO_NUL_RULE = "text without NUL characters (U+0000)";
export function hasNoNul(value: string): boolean {
  return !value.includes("\u0000");
}

export const NameFragmentParam = z
  .string()
  .min(2)
  .max(200)
  // Spaces alone would match every name (or none): say so instead of charging for it.
  .refine((value) => value.trim().length >= 2, { error: "2 to 200 characters, not only spaces" })
  .refine(hasNoNul, { error: NO_NUL_RULE })
  .meta({ description: "Name fragment, 2 to 200 characters; case- and accent-insensitive." });

export const DateParam = z.iso
  .date({ error: "a calendar date in the form YYYY-MM-DD" })
  .meta({ example: "2025-01-31", description: "Calendar date YYYY-MM-DD." });

/** `{id}`: the input of the verbs that read one record. */
export const IdInputSchema = z.object({ id: IdParam });

/** `{page, size}`: one page of a list. */
export const PageInputSchema = z.object({ page: PageParam, size: SizeParam });

/** `{id, page, size}`: one page of a record's list (a company's awards or opportunities). */
export const PagedIdInputSchema = IdInputSchema.extend(PageInputSchema.shape);
