import { z } from "@hono/zod-openapi";
import { START_DATE_KINDS } from "../../../domain/vocabulary.ts";
import { ConfidenceSchema, MetaSchema } from "../../envelope.ts";
import { DateSchema } from "../../schemas/common.ts";
import { PartySchema } from "../companies/schema.ts";

const BasisCommon = {
  basis_version: z.literal(2),
  window_rule: z.string(),
  confidence_rule: z.string(),
  confidence_measured: z
    .object({
      confidence: ConfidenceSchema,
      scored: z.number().int(),
      hit_rate: z.number(),
      baseline_rate: z.number(),
      skill_ci95: z.tuple([z.number(), z.number()]),
      measured_on: z.string(),
    })
    .nullable()
    .openapi({
      description:
        "The measured rate this signal's confidence stands for: how often forecasts of this type and confidence " +
        "came true on real history, beside a window of the same length placed at random (docs/signals.md).",
    }),
  retendered_by: z
    .string()
    .nullable()
    .openapi({
      description:
        "Reference of the buyer's first related tender (listing the signal's CPV division, and sharing a CPV " +
        "class with the basis or with a similar title) published inside the window after the basis award: the " +
        "forecast came true. Null while the signal is open.",
    }),
};

export const ExpiryBasisSchema = z
  .object({
    signal_type: z.enum(["duration_expiry", "framework_expiry"]),
    ...BasisCommon,
    tender_ref: z.string(),
    tender_id: z.number().int(),
    tender_title: z.string().nullable(),
    award_ref: z.string(),
    award_id: z.number().int(),
    award_date: DateSchema.nullable(),
    lots: z.number().int().openapi({
      description:
        "Awards (lots) of the procedure in this CPV division that the signal stands for: one signal each.",
    }),
    lot_award_refs: z.array(z.string()),
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
    call_lead_days: z.number().int().openapi({
      description:
        "Days from the basis tender's publication to its award (0 without a call), capped (window_rule).",
    }),
    predicted_date: DateSchema.openapi({
      description: "end_date minus call_lead_days: the expected re-tender.",
    }),
    related_in_prior_year: z.number().int().openapi({
      description:
        "Related tenders the buyer published in the year before the award: the confidence is read from it.",
    }),
  })
  .openapi("ExpiryBasis");

export const RecurrenceBasisSchema = z
  .object({
    signal_type: z.literal("recurrence"),
    ...BasisCommon,
    cpv_class: z
      .string()
      .openapi({ description: "The CPV class (first 4 digits) of the buyer's purchases." }),
    award_refs: z.array(z.string()),
    award_history: z.array(
      z.object({
        award_date: DateSchema,
        event_date: DateSchema.openapi({ description: "When the event's tender was published." }),
        source_ref: z.string(),
      }),
    ),
    intervals_days: z.array(z.number().int()),
    median_interval_days: z.number(),
    last_award_date: DateSchema,
    last_event_date: DateSchema,
    predicted_date: DateSchema,
    evidence_count: z.number().int(),
    yearly_cycle_seen: z.boolean().openapi({
      description:
        "An event a year before the last burst was found (cycle_event_date): the confidence is high.",
    }),
    cycle_event_date: DateSchema.nullable(),
    tender_title: z.string().nullable(),
  })
  .openapi("RecurrenceBasis");

export const RenewalSignalSchema = z
  .object({
    id: z.number().int().openapi({ description: "Stable: derived from the basis key." }),
    signal_type: z.enum(["duration_expiry", "framework_expiry", "recurrence"]),
    cpv: z.string().openapi({
      description: "The award's CPV (expiry signals) or the class's XXXX0000 code (recurrence).",
    }),
    buyer: z.object({ id: z.number().int(), name: z.string(), nuts: z.string().nullable() }),
    window_start: DateSchema,
    window_end: DateSchema,
    confidence: ConfidenceSchema,
    basis: z.union([ExpiryBasisSchema, RecurrenceBasisSchema]),
  })
  .openapi("RenewalSignal");

const BacktestRowSchema = z
  .object({
    signal_type: z.enum(["duration_expiry", "framework_expiry", "recurrence", "all"]),
    confidence: z.enum(["low", "medium", "high", "all"]),
    basis: z.literal("competed"),
    scored: z.number().int(),
    hits: z.number().int(),
    hit_rate: z.number().nullable(),
    baseline_rate: z.number().nullable().openapi({
      description:
        "Mean probability that a window of the same length placed at random holds a related tender.",
    }),
    skill: z.number().nullable().openapi({ description: "hit_rate minus baseline_rate." }),
    skill_ci95: z
      .tuple([z.number(), z.number()])
      .nullable()
      .openapi({ description: "95 % bootstrap interval of skill, resampling buyers." }),
    from_as_of_rate: z.number().nullable(),
    division_hit_rate: z.number().nullable(),
    buyers: z.number().int(),
    unresolved: z.number().int(),
  })
  .openapi("RenewalBacktestRow");

export const BacktestSchema = z
  .object({
    run_at: z.iso.datetime(),
    version: z.literal(2),
    as_of: z.array(DateSchema),
    coverage_end: DateSchema.nullable(),
    coverage_end_by_source: z.record(z.string(), DateSchema),
    coverage_end_from: z.enum(["argument", "data"]),
    corpus: z.object({
      awards: z.number().int(),
      tenders: z.number().int(),
      buyers: z.number().int(),
      synthetic_share: z.number(),
    }),
    rules: z.object({
      hit: z.string(),
      related: z.string(),
      baseline: z.string(),
      from_as_of: z.string(),
      scored: z.string(),
      coverage: z.string(),
      interval: z.string(),
    }),
    rows: z.array(BacktestRowSchema),
    per_as_of: z.array(z.object({ as_of: DateSchema, rows: z.array(BacktestRowSchema) })),
    note: z.string(),
  })
  .openapi("RenewalBacktest", {
    description:
      "The latest backtest (npm run cli -- backtest-renewals): signals computed with only the data published " +
      "before each as-of date, scored against what was published after, beside a window of the same length " +
      "placed at random (skill) with a bootstrap interval over buyers.",
  });

export const RenewalsMetaSchema = MetaSchema.extend({
  page: z.number().int(),
  total: z.number().int(),
  methodology: z.string(),
  confidence_scale: z.array(ConfidenceSchema),
  backtest: BacktestSchema.nullable().openapi({ description: "Null until a backtest has been run." }),
}).openapi("RenewalsMeta");
