import { z } from "@hono/zod-openapi";
import { IdParam } from "../../domain/params.ts";

/** Positive integer path id (the verbs' `id`); anything else (0, -1, 1.5, abc) is a 400, never a 404. */
export const IdParamSchema = z.object({
  // `.meta`, not `.openapi`: a schema made before @hono/zod-openapi patched zod (domain modules may load first,
  // as in the CLI) has no `.openapi` method; zod-to-openapi reads `.meta` all the same.
  id: IdParam.meta({ param: { name: "id", in: "path" } }),
});

export const PartyRefSchema = z
  .object({ id: z.number().int(), name: z.string() })
  .nullable()
  .openapi("PartyRef");

/** Calendar date in the `YYYY-MM-DD` form. */
export const DateSchema = z.string().openapi({ format: "date", example: "2025-07-18" });
