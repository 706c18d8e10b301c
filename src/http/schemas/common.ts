import { z } from "@hono/zod-openapi";

/** Positive integer path id; anything else (0, -1, 1.5, abc) is a 400, never a 404. */
export const IdParamSchema = z.object({
  id: z.coerce
    .number({ error: "a positive integer" })
    .int({ error: "a positive integer" })
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: "id", in: "path" }, type: "integer", minimum: 1, example: 1 }),
});

export const PartyRefSchema = z
  .object({ id: z.number().int(), name: z.string() })
  .nullable()
  .openapi("PartyRef");

/** Calendar date in the `YYYY-MM-DD` form. */
export const DateSchema = z.string().openapi({ format: "date", example: "2025-07-18" });
