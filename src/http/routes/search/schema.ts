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
    cpv: z.string().nullable().openapi({
      description:
        "Award and contract rows: the award's own CPV (its lot's, else the notice's main); tender rows: the main CPV.",
    }),
    cpv_label_en: z
      .string()
      .nullable()
      .openapi({ description: "The CPV's English label, when CPV labels are loaded." }),
    cpv_label_es: z
      .string()
      .nullable()
      .openapi({ description: "The CPV's Spanish label, when CPV labels are loaded." }),
    nuts: z.string().nullable().openapi({ description: "The notice's NUTS code." }),
    nuts_name: z
      .string()
      .nullable()
      .openapi({ description: "The NUTS region's name, when NUTS names are loaded." }),
    tender_id: z.number().int().nullable(),
    tender_source_ref: z.string().nullable(),
  })
  .openapi("SearchRow");
