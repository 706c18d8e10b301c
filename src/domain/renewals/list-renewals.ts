import { z } from "zod";
import {
  latestBacktest,
  listRenewalSignals,
  type RenewalRecord,
  tenderNotices,
} from "../../db/queries/renewals.ts";
import { partyIdsNamedLike } from "../../db/queries/search.ts";
import { addMonths, calendarDate } from "../../lib/calendar.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { CpvParam, NameFragmentParam, PageParam, SizeParam } from "../params.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import {
  type BacktestResult,
  type Confidence,
  type RenewalSignal,
  type SignalBasis,
  type SignalType,
  withRules,
} from "./signal.ts";

/** The input of `listRenewals` (REST query of GET /v1/renewals, arguments of the MCP tool get_renewals). */
export const RenewalsInputSchema = z.object({
  cpv: CpvParam.optional(),
  buyer: NameFragmentParam.optional(),
  window_months: z.coerce
    .number({ error: "an integer from 1 to 36" })
    .int({ error: "an integer from 1 to 36" })
    .min(1)
    .max(36)
    .default(12)
    .meta({
      type: "integer",
      minimum: 1,
      maximum: 36,
      default: 12,
      description: "Signals whose window overlaps [today, today + window_months] are listed.",
    }),
  min_confidence: z
    .enum(["low", "medium", "high"])
    .optional()
    .meta({
      description:
        "Lowest confidence to list: low lists all, high only high. Default medium: low signals showed no skill " +
        "over a random window on real history (their basis.confidence_measured says so).",
    }),
  // A string on the wire (a REST query has no booleans); MCP callers send "true" or "false" likewise.
  include_retendered: z
    .enum(["true", "false"], { error: "true or false" })
    .default("false")
    .transform((value) => value === "true")
    .meta({
      type: "boolean",
      default: false,
      description:
        "Also list signals whose re-tender has already been published (basis.retendered_by names it).",
    }),
  page: PageParam,
  size: SizeParam,
});

export type RenewalsInput = z.output<typeof RenewalsInputSchema>;

/** The latest backtest as reported beside the signals. */
export interface BacktestSummary extends BacktestResult {
  run_at: string;
}

export interface RenewalsResult {
  signals: RenewalSignal[];
  total: number;
  page: number;
  provenance: Provenance[];
  backtest: BacktestSummary | null;
}

export const RENEWALS_METHODOLOGY =
  "Renewal signals are a deterministic heuristic over published awards and dates, not a calibrated " +
  "probability, and only of competed procedures (a minor contract is a direct award no supplier can bid for). " +
  "duration_expiry and framework_expiry: a procedure's contract end (published, else start + duration, else " +
  "award date + duration), less the time the buyer took from call to award, plus or minus 45 days; " +
  "recurrence: a buyer's competed purchases of a CPV class, a year after the last burst, plus or minus 30 days. " +
  "Each signal's basis carries its evidence, window rule, confidence rule and the measured rate its confidence " +
  "stands for (confidence_measured); meta.backtest reports the latest backtest: hit rates beside a window of " +
  "the same length placed at random (skill), with a 95 % interval. Low-confidence signals are listed only with " +
  "min_confidence=low.";

const CONFIDENCE_RANK: Record<Confidence, number> = { low: 1, medium: 2, high: 3 };
/** What GET /v1/renewals lists without min_confidence: the levels with measured skill (docs/signals.md). */
export const DEFAULT_MIN_CONFIDENCE: Confidence = "medium";

/**
 * Renewal signals whose window overlaps [today, today + window_months], ordered by window start, then
 * confidence (high first), then id. Signals whose re-tender has already been published are left out unless
 * `include_retendered`. Provenance names the notices of every award the listed signals use.
 */
export async function listRenewals({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: RenewalsInput;
}): Promise<RenewalsResult> {
  const db = readerOf(ctx);
  const today = calendarDate(ctx.now());
  const [buyerIds, backtest] = await Promise.all([
    input.buyer ? partyIdsNamedLike(db, "buyer", input.buyer.trim()) : null,
    latestBacktest(db),
  ]);
  const summary: BacktestSummary | null = backtest
    ? { run_at: backtest.run_at.toISOString(), ...(backtest.result as BacktestResult) }
    : null;
  if (buyerIds?.length === 0) {
    return { signals: [], total: 0, page: input.page, provenance: [], backtest: summary };
  }
  const { records, total } = await listRenewalSignals(db, {
    // A trailing check digit ("72000000-5") is accepted and ignored, as on search.
    cpvPrefix: input.cpv ? (input.cpv.split("-")[0] ?? null) : null,
    buyerIds,
    from: today,
    to: addMonths(today, input.window_months),
    minConfidenceRank: CONFIDENCE_RANK[input.min_confidence ?? DEFAULT_MIN_CONFIDENCE],
    includeRetendered: input.include_retendered,
    limit: input.size,
    offset: (input.page - 1) * input.size,
  });
  const tenderIds = [...new Set(records.flatMap((r) => r.evidence_tender_ids))];
  const notices = await tenderNotices(db, tenderIds);
  return {
    signals: records.map(toSignal),
    total,
    page: input.page,
    provenance: notices.map(provenanceOf),
    backtest: summary,
  };
}

export function toSignal(r: RenewalRecord): RenewalSignal {
  return {
    id: r.id,
    signal_type: r.signal_type as SignalType,
    cpv: r.cpv,
    buyer: { id: r.buyer_id, name: r.buyer_name, nuts: r.buyer_nuts },
    window_start: r.window_start,
    window_end: r.window_end,
    confidence: r.confidence as Confidence,
    basis: withRules(r.basis as SignalBasis, r.confidence as Confidence),
  };
}
