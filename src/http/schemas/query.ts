import { z } from "@hono/zod-openapi";

/**
 * Query parameters of the spec with their limits (SPEC.md, Limits). One definition each, shared by every route
 * and by the MCP tool input schemas, so a limit cannot differ between surfaces.
 */

export const PageParam = z.coerce
  .number({ error: "an integer of at least 1" })
  .int({ error: "an integer of at least 1" })
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .default(1)
  .openapi({ type: "integer", minimum: 1, default: 1, description: "1-based page number." });

export const SizeParam = z.coerce
  .number({ error: "an integer from 1 to 100" })
  .int({ error: "an integer from 1 to 100" })
  .min(1)
  .max(100)
  .default(20)
  .openapi({ type: "integer", minimum: 1, maximum: 100, default: 20, description: "Rows per page." });

const CPV_FORMAT = "2 to 8 digits, optionally followed by '-' and one check digit (e.g. 72 or 72000000-5)";
export const CpvParam = z
  .string()
  .regex(/^\d{2,8}(-\d)?$/, { error: CPV_FORMAT })
  .openapi({ example: "72", description: `CPV code or prefix: ${CPV_FORMAT}; 72 matches 72*.` });

const REGION_FORMAT = "a NUTS code or prefix: two letters then up to 3 letters or digits (e.g. ES or ES511)";
export const RegionParam = z
  .string()
  .regex(/^[A-Za-z]{2}[A-Za-z0-9]{0,3}$/, { error: REGION_FORMAT })
  .openapi({ example: "ES51", description: REGION_FORMAT });

export const NameFragmentParam = z
  .string()
  .min(2)
  .max(200)
  .openapi({ description: "Name fragment, 2 to 200 characters; case- and accent-insensitive." });

export const DateParam = z.iso
  .date({ error: "a calendar date in the form YYYY-MM-DD" })
  .openapi({ example: "2025-01-31", description: "Calendar date YYYY-MM-DD." });

export const PageQuerySchema = z.object({ page: PageParam, size: SizeParam });

/** `from` must not be after `to`; reported on `to` so the message names a parameter. */
function datesInOrder(value: { from?: string; to?: string }, ctx: z.core.$RefinementCtx): void {
  if (value.from && value.to && value.from > value.to) {
    ctx.addIssue({ code: "custom", path: ["to"], message: `a date on or after from (${value.from})` });
  }
}

export const SearchQuerySchema = z
  .object({
    q: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: "Plain-text Spanish full-text query over title and description (max 200)." }),
    cpv: CpvParam.optional(),
    buyer: NameFragmentParam.optional(),
    company: NameFragmentParam.optional(),
    region: RegionParam.optional(),
    from: DateParam.optional(),
    to: DateParam.optional(),
    type: z
      .enum(["award", "tender", "contract"])
      .default("award")
      .openapi({ description: "Row kind; from/to apply to award_date, publication_date or start_date." }),
    page: PageParam,
    size: SizeParam,
  })
  .superRefine(datesInOrder);

export const RenewalsQuerySchema = z.object({
  cpv: CpvParam.optional(),
  buyer: NameFragmentParam.optional(),
  window_months: z.coerce
    .number({ error: "an integer from 1 to 36" })
    .int({ error: "an integer from 1 to 36" })
    .min(1)
    .max(36)
    .default(12)
    .openapi({
      type: "integer",
      minimum: 1,
      maximum: 36,
      default: 12,
      description: "Signals whose window overlaps [today, today + window_months] are listed.",
    }),
  min_confidence: z
    .enum(["low", "medium", "high"])
    .optional()
    .openapi({ description: "Lowest confidence to list: low lists all, high only high." }),
  include_retendered: z
    .enum(["true", "false"], { error: "true or false" })
    .default("false")
    .transform((value) => value === "true")
    .openapi({
      type: "boolean",
      default: false,
      description:
        "Also list signals whose re-tender has already been published (basis.retendered_by names it).",
    }),
  page: PageParam,
  size: SizeParam,
});
