import { z } from "@hono/zod-openapi";
import { DateSchema, PartyRefSchema } from "../../schemas/common.ts";
import { AwardSchema } from "../tenders/schema.ts";

/** A party that is always present (list items), unlike the nullable `PartyRef`. */
export const PartySchema = z.object({ id: z.number().int(), name: z.string() }).openapi("Party");

export const TenderContextSchema = z
  .object({
    id: z.number().int().nullable(),
    source_ref: z.string().nullable(),
    title: z.string().nullable(),
    cpv_main: z.string().nullable(),
    publication_date: DateSchema.nullable(),
    buyer: PartyRefSchema,
  })
  .openapi("TenderContext", { description: "The tender the award belongs to, with the tender's buyer." });

export const AwardWithTenderSchema = AwardSchema.extend({ tender: TenderContextSchema }).openapi(
  "AwardWithTender",
  { description: "An Award with the context of its tender (company awards, buyer history)." },
);

const TotalValueSchema = z.number().nullable().openapi({
  description: "Sum of the EUR award values that are not framework ceilings; null when none is known.",
});

export const CompanySchema = z
  .object({
    id: z.number().int(),
    source_ref: z
      .string()
      .nullable()
      .openapi({ description: "A source's own reference for the company; null when no source gives one." }),
    name: z.string().openapi({ description: "The first name the company was published under." }),
    country: z.string().nullable(),
    nif: z
      .string()
      .nullable()
      .openapi({ description: "Normalized Spanish tax id (NIF/NIE/CIF), when valid." }),
    aliases: z
      .array(z.string())
      .openapi({ description: "Every name seen in source payloads, in code-point order." }),
    identifiers: z
      .array(z.object({ scheme: z.enum(["nif", "ted", "placsp"]), value: z.string() }))
      .openapi({ description: "Normalized NIF plus each linked source's reference, by scheme then value." }),
    stats: z.object({
      wins: z.number().int().openapi({ description: "Awards naming the company as winner." }),
      total_awarded_value: TotalValueSchema,
      top_cpvs: z
        .array(
          z.object({
            code: z.string(),
            label_en: z.string().nullable(),
            label_es: z.string().nullable(),
            wins: z.number().int(),
            total_value: TotalValueSchema,
          }),
        )
        .openapi({
          description:
            "Top 10 CPV codes of the won awards: wins desc, total_value desc (unknown last), code asc. " +
            "Labels are null when the CPV table is not loaded.",
        }),
      top_buyers: z
        .array(
          z.object({
            id: z.number().int(),
            name: z.string(),
            wins: z.number().int(),
            total_value: TotalValueSchema,
          }),
        )
        .openapi({ description: "Top 10 buyers: wins desc, total_value desc (unknown last), id asc." }),
    }),
    is_joint_venture: z.boolean().openapi({
      description: "A joint venture (UTE): a company of its own, never merged into its members.",
    }),
    members: z.array(PartySchema).openapi({
      description: "For a joint venture: its member companies (when a source names them), by id.",
    }),
    member_of: z
      .array(PartySchema)
      .openapi({ description: "Joint ventures this company is a member of, by id." }),
  })
  .openapi("Company");

export const OpportunitySchema = z
  .object({
    id: z.number().int().openapi({ description: "The tender's id (GET /v1/tenders/{id})." }),
    source_ref: z.string().nullable(),
    title: z.string().nullable(),
    publication_date: DateSchema.nullable(),
    deadline: z.string().nullable().openapi({ format: "date-time", description: "Submission deadline." }),
    cpv_main: z.string().nullable(),
    estimated_value: z.number().nullable(),
    currency: z.string().nullable(),
    nuts: z.string().nullable(),
    url: z.string().nullable().openapi({ format: "uri" }),
    buyer: PartyRefSchema,
    score: z.number().int().openapi({ description: "Deterministic integer score; meta.score_explanation." }),
    same_buyer: z
      .boolean()
      .openapi({ description: "The tender's buyer awarded the company (or a joint venture of it) before." }),
    same_cpv: z.boolean().openapi({
      description:
        "One of the tender's CPV codes shares at least its division (first 2 digits) with a CPV of the " +
        "company's awards.",
    }),
  })
  // No hand-written example: the operation's examples are real answers (src/http/openapi-examples.json).
  .openapi("Opportunity", { description: "An open tender that fits a company's award history." });
