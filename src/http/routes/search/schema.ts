import { z } from "@hono/zod-openapi";
import { SEARCH_KINDS } from "../../../domain/search/search-notices.ts";
import { DateSchema, PartyRefSchema } from "../../schemas/common.ts";

export const SearchRowSchema = z
  .object({
    kind: z.enum(SEARCH_KINDS),
    id: z
      .number()
      .int()
      .openapi({ description: "Award id for award/contract rows, tender id for tender rows." }),
    source_ref: z.string().nullable(),
    title: z.string().nullable(),
    date: DateSchema.nullable().openapi({
      description: "award_date (award rows), publication_date (tender rows) or start_date (contract rows).",
    }),
    buyer: PartyRefSchema,
    company: PartyRefSchema.openapi({ description: "The winner (null on tender rows)." }),
    value: z.number().nullable().openapi({
      description:
        "Award value (tax exclusive; for frameworks a ceiling, see meta.caveats) or estimated value.",
    }),
    currency: z.string().nullable(),
    cpv: z.string().nullable(),
    tender_id: z.number().int().nullable(),
    tender_source_ref: z.string().nullable(),
  })
  .openapi("SearchRow");
