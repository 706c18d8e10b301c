import { z } from "@hono/zod-openapi";
import { START_DATE_KINDS } from "../../../domain/vocabulary.ts";
import { ConfidenceSchema, MetaSchema } from "../../envelope.ts";
import { DateSchema } from "../../schemas/common.ts";
import { PartySchema } from "../companies/schema.ts";

const BasisCommon = {
  basis_version: z.literal(1),
  window_rule: z.string(),
  confidence_rule: z.string(),
  retendered_by: z
    .string()
    .nullable()
    .openapi({
      description:
        "Reference of the tender of the same buyer and CPV division published after the basis award and no " +
        "later than the window's end (the forecast came true); null while the signal is open.",
    }),
};

export const ExpiryBasisSchema = z
  .object({
    signal_type: z.enum(["duration_expiry", "framework_expiry"]),
    ...BasisCommon,
    tender_ref: z.string(),
    tender_id: z.number().int(),
    award_ref: z.string(),
    award_id: z.number().int(),
    award_date: DateSchema.nullable(),
    start_date: DateSchema.nullable(),
    start_date_kind: z
      .enum(START_DATE_KINDS)
      .nullable()
      .openapi({
        description:
          "Whether start_date is the contract's actual start or its planned start (PLACSP's " +
          "TenderResult/StartDate is actual; a PlannedPeriod/StartDate, PLACSP or TED, is planned).",
      }),
    end_date: DateSchema,
    end_date_source: z.enum(["published_end_date", "start_plus_duration", "award_plus_duration"]),
    duration_months: z.number().nullable(),
    incumbent: PartySchema.nullable(),
    max_end_date: DateSchema.nullable().openapi({
      description: "The latest end including announced extensions, when the notice gives it.",
    }),
    extension_text: z
      .string()
      .nullable()
      .openapi({ description: "Announced extensions/options as published." }),
  })
  .openapi("ExpiryBasis");

export const RecurrenceBasisSchema = z
  .object({
    signal_type: z.literal("recurrence"),
    ...BasisCommon,
    award_refs: z.array(z.string()),
    award_history: z.array(z.object({ award_date: DateSchema, source_ref: z.string() })),
    intervals_days: z.array(z.number().int()),
    median_interval_days: z.number(),
    last_award_date: DateSchema,
    predicted_date: DateSchema,
    evidence_count: z.number().int(),
  })
  .openapi("RecurrenceBasis");

export const RenewalSignalSchema = z
  .object({
    id: z.number().int().openapi({ description: "Stable: derived from the basis key." }),
    signal_type: z.enum(["duration_expiry", "framework_expiry", "recurrence"]),
    cpv: z.string().openapi({
      description: "The award's CPV (expiry signals) or the division's XX000000 code (recurrence).",
    }),
    buyer: z.object({ id: z.number().int(), name: z.string(), nuts: z.string().nullable() }),
    window_start: DateSchema,
    window_end: DateSchema,
    confidence: ConfidenceSchema,
    basis: z.union([ExpiryBasisSchema, RecurrenceBasisSchema]),
  })
  .openapi("RenewalSignal");

const BacktestRowSchema = z.object({
  signal_type: z.enum(["duration_expiry", "framework_expiry", "recurrence"]),
  confidence: ConfidenceSchema,
  signals: z.number().int(),
  hits: z.number().int(),
  hit_rate: z.number().nullable(),
  median_abs_error_days: z.number().nullable(),
  unresolved: z.number().int(),
});

const BaseRateSchema = z.object({
  forecasts: z.number().int(),
  hits: z.number().int(),
  hit_rate: z.number().nullable(),
});

export const BacktestSchema = z
  .object({
    run_at: z.iso.datetime(),
    as_of: z.array(DateSchema),
    corpus: z.object({
      awards: z.number().int(),
      tenders: z.number().int(),
      buyers: z.number().int(),
      data_until: DateSchema.nullable(),
      synthetic_share: z.number(),
    }),
    rules: z.object({ hit: z.string(), error: z.string(), base_rate: z.string(), scored: z.string() }),
    table: z.array(BacktestRowSchema),
    overall: z.object({ signals: z.number().int(), hits: z.number().int(), hit_rate: z.number().nullable() }),
    base_rate: BaseRateSchema,
    lift: z.number().nullable(),
    per_as_of: z.array(
      z.object({ as_of: DateSchema, table: z.array(BacktestRowSchema), base_rate: BaseRateSchema }),
    ),
    note: z.string(),
  })
  .openapi("RenewalBacktest", {
    description:
      "The latest backtest (npm run cli -- backtest-renewals): signals computed with only the data published " +
      "before each as-of date, scored against what was published after, beside a naive rule's base rate.",
  });

export const RenewalsMetaSchema = MetaSchema.extend({
  page: z.number().int(),
  total: z.number().int(),
  methodology: z.string(),
  confidence_scale: z.array(ConfidenceSchema),
  backtest: BacktestSchema.nullable().openapi({ description: "Null until a backtest has been run." }),
}).openapi("RenewalsMeta");
