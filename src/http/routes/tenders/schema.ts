import { z } from "@hono/zod-openapi";
import { DateSchema, PartyRefSchema } from "../../schemas/common.ts";

export const AwardSchema = z
  .object({
    id: z.number().int(),
    tender_id: z.number().int().nullable(),
    source_ref: z.string().nullable(),
    award_date: DateSchema.nullable(),
    lot: z.string().nullable(),
    winner: PartyRefSchema,
    value: z
      .number()
      .nullable()
      .openapi({ description: "Tax-exclusive value; for frameworks a ceiling, not spend." }),
    currency: z.string().nullable(),
    bidders_count: z.number().int().nullable(),
    framework: z.boolean(),
    duration_months: z.number().nullable(),
    start_date: DateSchema.nullable(),
    end_date: DateSchema.nullable(),
  })
  .openapi("Award");

export const TenderSchema = z
  .object({
    id: z.number().int(),
    source_ref: z.string().nullable(),
    notice_type: z.string().nullable(),
    publication_date: DateSchema.nullable(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    cpv_main: z.string().nullable(),
    cpv_main_label_en: z
      .string()
      .nullable()
      .openapi({ description: "cpv_main's English label, when CPV labels are loaded." }),
    cpv_main_label_es: z
      .string()
      .nullable()
      .openapi({ description: "cpv_main's Spanish label, when CPV labels are loaded." }),
    cpv_all: z.array(z.string()),
    procedure_type: z.string().nullable(),
    deadline: z.string().nullable().openapi({ format: "date-time" }),
    estimated_value: z.number().nullable(),
    currency: z.string().nullable(),
    nuts: z.string().nullable(),
    nuts_name: z
      .string()
      .nullable()
      .openapi({ description: "The NUTS region's name, when NUTS names are loaded." }),
    url: z.string().nullable().openapi({ format: "uri" }),
    buyer: PartyRefSchema,
    awards: z.array(AwardSchema),
  })
  .openapi("Tender");
