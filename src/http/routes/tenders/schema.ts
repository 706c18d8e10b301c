import { z } from "@hono/zod-openapi";
import {
  CONTRACT_TYPES,
  NOTICE_TYPES,
  PROCEDURE_TYPES,
  START_DATE_KINDS,
  TENDER_STATUSES,
} from "../../../domain/vocabulary.ts";
import { DateSchema, PartyRefSchema } from "../../schemas/common.ts";

const VOCABULARY =
  "One vocabulary for both sources (docs/vocabulary.md); the code as published is in source_codes.";

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
    start_date: DateSchema.nullable().openapi({
      description: "The contract's start: the actual one when the notice publishes it, else the planned one.",
    }),
    start_date_kind: z
      .enum(START_DATE_KINDS)
      .nullable()
      .openapi({
        description:
          "actual: the contract's entry into force (PLACSP TenderResult/StartDate); planned: the start the notice " +
          "plans (PlannedPeriod/StartDate, PLACSP or TED). Null exactly when start_date is.",
      }),
    end_date: DateSchema.nullable(),
  })
  .openapi("Award");

export const SourceCodesSchema = z
  .object({
    notice: z.string().optional(),
    procedure: z.string().optional(),
    contract: z.string().optional(),
    status: z.string().optional(),
    legal_basis: z.string().optional(),
  })
  .openapi("SourceCodes", {
    description:
      "The codes the common fields were mapped from, exactly as the notice publishes them, each only when " +
      "present (an unknown code is kept here while the common field is null). PLACSP: NoticeTypeCode, " +
      "ProcedureCode, TypeCode, ContractFolderStatusCode (CODICE lists). TED: notice type (BT-02), procedure " +
      "type (BT-105), contract nature (BT-23), legal basis (BT-01); R2.0.9 notices keep their form, PT_* " +
      "element, CTYPE and LEGAL_BASIS.",
    example: { notice: "DOC_FORM", procedure: "1", contract: "2", status: "RES" },
  });

export const TenderSchema = z
  .object({
    id: z.number().int(),
    source_ref: z.string().nullable(),
    notice_type: z
      .enum(NOTICE_TYPES)
      .nullable()
      .openapi({ description: `Stage the newest notice announces. ${VOCABULARY}` }),
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
    procedure_type: z
      .enum(PROCEDURE_TYPES)
      .nullable()
      .openapi({
        description:
          "eForms procedure type (BT-105), plus the Spanish procedures eForms lacks: simplified-open, " +
          `minor-contract, call-off, design-contest, internal-rules, other. ${VOCABULARY}`,
      }),
    contract_type: z
      .enum(CONTRACT_TYPES)
      .nullable()
      .openapi({
        description: `Works, supplies, services (eForms BT-23), concession or other. ${VOCABULARY}`,
      }),
    status: z
      .enum(TENDER_STATUSES)
      .nullable()
      .openapi({
        description:
          "Where the procedure stands, as its newest notice tells; open with a past deadline reads evaluation. " +
          VOCABULARY,
      }),
    source_codes: SourceCodesSchema,
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
