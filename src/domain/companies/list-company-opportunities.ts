import type { z } from "zod";
import {
  listOpportunities,
  type OpportunityRow,
  type OpportunityWeights,
  readOpportunityProfile,
} from "../../db/queries/opportunities.ts";
import { calendarDate } from "../../lib/calendar.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { PagedIdInputSchema } from "../params.ts";
import { type PartyRef, partyRef } from "../party.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import { companyNotFound } from "./not-found.ts";

/** The spec's Opportunity (SPEC.md, Resources): exactly its fields, the formula is in meta.score_explanation. */
export interface Opportunity {
  id: number;
  source_ref: string | null;
  title: string | null;
  publication_date: string | null;
  deadline: string | null;
  cpv_main: string | null;
  estimated_value: number | null;
  currency: string | null;
  nuts: string | null;
  url: string | null;
  buyer: PartyRef | null;
  score: number;
  same_buyer: boolean;
  same_cpv: boolean;
}

export interface CompanyOpportunitiesResult {
  opportunities: Opportunity[];
  page: number;
  total: number;
  score_explanation: string;
  provenance: Provenance[];
  caveats: string[] | undefined;
}

/** The opportunity window (SPEC.md, Limits): published within this many days, or a deadline still ahead. */
export const OPPORTUNITY_WINDOW_DAYS = 90;

/**
 * The score's points (docs/decisions.md, Opportunity score). Integers, so the score is an integer and the same
 * data gives the same order byte for byte; the maximum is 100. Matching the buyer and the CPV carry most of
 * it (they are what the spec's inclusion rule names); recency, value fit and renewal evidence break ties
 * among tenders that match alike.
 */
export const OPPORTUNITY_WEIGHTS: OpportunityWeights = {
  sameBuyer: 25,
  cpv8: 35,
  cpv6: 25,
  cpv4: 15,
  cpv2: 5,
  recencyMax: 10,
  recencyStepDays: 9,
  valueNear: 10,
  valueNearFactor: 2,
  valueFar: 5,
  valueFarFactor: 4,
  renewalRetendered: 20,
  renewalOpen: 10,
};

/** Distinct prefixes of `length` digits of the codes, in code order. */
function prefixes(codes: readonly string[], length: number): string[] {
  return [...new Set(codes.map((code) => code.slice(0, length)))].sort();
}

function formatEur(value: number): string {
  return `${Number(value.toFixed(2))} EUR`;
}

/** `meta.score_explanation`: every component with its points, and the company's own median. */
export function scoreExplanation(
  medianValue: number | null,
  w: OpportunityWeights = OPPORTUNITY_WEIGHTS,
): string {
  const median =
    medianValue === null
      ? "unknown for this company: no EUR award value that is not a framework ceiling, so 0 points"
      : formatEur(medianValue);
  const max = w.sameBuyer + w.cpv8 + w.recencyMax + w.valueNear + w.renewalRetendered;
  return (
    `score (integer, 0 to ${max}) = same_buyer ${w.sameBuyer} (the tender's buyer awarded the company before) ` +
    `+ CPV ${w.cpv8} / ${w.cpv6} / ${w.cpv4} / ${w.cpv2} when one of the tender's CPV codes shares its first ` +
    "8 / 6 / 4 / 2 digits with a CPV of the company's awards (the longest match counts; same_cpv is true " +
    `from 2 digits, the division) + recency ${w.recencyMax} minus 1 per full ${w.recencyStepDays} days since ` +
    `publication (0 from ${w.recencyMax * w.recencyStepDays} days or when unknown) + value ${w.valueNear} ` +
    `when estimated_value (EUR) is within a factor ${w.valueNearFactor} of the company's median award value ` +
    `(${median}), ${w.valueFar} within a factor ${w.valueFarFactor} + renewal ${w.renewalRetendered} when a ` +
    `renewal signal of the buyer was re-tendered by this tender, else ${w.renewalOpen} when an open signal ` +
    "of medium confidence or more of the buyer in the tender's CPV division has a window holding the " +
    "publication date. The company's " +
    "awards are its own and those of the joint ventures (UTE) it is a member of. Order: score descending, " +
    "then id descending. A deterministic heuristic, not a probability."
  );
}

const NO_HISTORY_CAVEAT =
  "The company has no award with a buyer or a CPV code (its own or its joint ventures'), so no tender can " +
  "match its history.";

function toOpportunity(row: OpportunityRow): Opportunity {
  return {
    id: row.id,
    source_ref: row.source_ref,
    title: row.title,
    publication_date: row.publication_date,
    deadline: row.deadline ? row.deadline.toISOString() : null,
    cpv_main: row.cpv_main,
    estimated_value: row.estimated_value,
    currency: row.currency,
    nuts: row.nuts,
    url: row.url,
    buyer: partyRef(row.buyer_id, row.buyer_name),
    score: row.score,
    same_buyer: row.same_buyer,
    same_cpv: row.same_cpv,
  };
}

/** Input: the parameters of GET /v1/companies/{id}/opportunities and the arguments of the MCP tool get_company_opportunities. */
export const CompanyOpportunitiesInputSchema = PagedIdInputSchema;

/**
 * One page of the open tenders that fit a company's award history (SPEC.md, Opportunity): published within
 * the last 90 days of the domain clock, or with a deadline after it; sharing a buyer or a CPV (at least the
 * division) with the awards of the company and of its joint ventures; not closed (docs/decisions.md,
 * Opportunities: what is open). Ordered by score descending, then id descending: a total order, so walking the
 * pages returns every opportunity once. A page beyond the last is an empty list with the real total.
 * Provenance names the notices of the page's tenders.
 */
export async function listCompanyOpportunities({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: z.output<typeof CompanyOpportunitiesInputSchema>;
}): Promise<CompanyOpportunitiesResult> {
  const db = readerOf(ctx);
  const profile = await readOpportunityProfile(db, input.id);
  if (!profile) {
    throw companyNotFound(input.id);
  }
  const explanation = scoreExplanation(profile.median_value);
  if (profile.buyers.length === 0 && profile.cpvs.length === 0) {
    return {
      opportunities: [],
      page: input.page,
      total: 0,
      score_explanation: explanation,
      provenance: [],
      caveats: [NO_HISTORY_CAVEAT],
    };
  }
  const now = ctx.now();
  const { rows, total } = await listOpportunities(
    db,
    {
      today: calendarDate(now),
      now,
      windowDays: OPPORTUNITY_WINDOW_DAYS,
      buyers: profile.buyers,
      cpv8: prefixes(profile.cpvs, 8),
      cpv6: prefixes(profile.cpvs, 6),
      cpv4: prefixes(profile.cpvs, 4),
      cpv2: prefixes(profile.cpvs, 2),
      medianValue: profile.median_value,
    },
    OPPORTUNITY_WEIGHTS,
    { limit: input.size, offset: (input.page - 1) * input.size },
  );
  return {
    opportunities: rows.map(toOpportunity),
    page: input.page,
    total,
    score_explanation: explanation,
    provenance: rows.map(provenanceOf),
    caveats: undefined,
  };
}
