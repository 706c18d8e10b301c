import { z } from "zod";
import {
  activeBuyers,
  type EvidenceRow,
  matchedCompanies,
  matchedSignals,
  matchedTenders,
  matchedTenderWindow,
  openMatchedTenders,
  type ResearchScope,
} from "../../db/queries/research.ts";
import { hasSearchableWords, partyIdsNamedLike, SEARCH_WINDOW } from "../../db/queries/search.ts";
import { addMonths, calendarDate } from "../../lib/calendar.ts";
import { OPPORTUNITY_WINDOW_DAYS } from "../companies/list-company-opportunities.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { hasNoNul, NO_NUL_RULE } from "../params.ts";
import { type PartyRef, partyRef } from "../party.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import type { Confidence, SignalType } from "../renewals/signal.ts";
import { type ContractType, effectiveStatus, type ProcedureType, type TenderStatus } from "../vocabulary.ts";

/** Default and maximum number of findings in a brief. */
export const RESEARCH_DEFAULT_LIMIT = 20;
export const RESEARCH_MAX_LIMIT = 50;

const LIMIT_RULE = `an integer from 1 to ${RESEARCH_MAX_LIMIT}`;

/** The input of `researchBrief` (JSON body of POST /v1/research, arguments of the MCP tool research). */
export const ResearchInputSchema = z.object({
  query: z
    .string({ error: "a text of 1 to 200 characters" })
    .trim()
    .min(1, { error: "a text of 1 to 200 characters" })
    .max(200, { error: "a text of 1 to 200 characters" })
    .refine(hasNoNul, { error: NO_NUL_RULE })
    .meta({
      example: "ciberseguridad",
      description:
        "Topic: matched as Spanish full text against tender titles and descriptions, and as a name fragment " +
        "against buyer and company names (renewal signals follow the matching tenders and buyers).",
    }),
  limit: z
    .number({ error: LIMIT_RULE })
    .int({ error: LIMIT_RULE })
    .min(1, { error: LIMIT_RULE })
    .max(RESEARCH_MAX_LIMIT, { error: LIMIT_RULE })
    .default(RESEARCH_DEFAULT_LIMIT)
    .meta({
      description: `Maximum findings in the whole brief (1 to ${RESEARCH_MAX_LIMIT}, default ${RESEARCH_DEFAULT_LIMIT}).`,
    }),
});

export type ResearchInput = z.output<typeof ResearchInputSchema>;
/** At most this many buyers and companies named like the query take part (lowest ids first). */
export const NAMED_PARTIES_MAX = 200;

interface FindingBase {
  /** Evidence strength of this finding (rule in the brief's `rules`). */
  confidence: Confidence;
  /** The upstream notices the finding rests on. */
  evidence: Provenance[];
}

export interface TenderFinding extends FindingBase {
  tender_id: number;
  title: string | null;
  buyer: PartyRef | null;
  publication_date: string | null;
  deadline: string | null;
  cpv_main: string | null;
  estimated_value: number | null;
  currency: string | null;
  /** In the common vocabulary whatever the source (domain/vocabulary.ts); status as the Tender answer reads it. */
  procedure_type: ProcedureType | null;
  contract_type: ContractType | null;
  status: TenderStatus | null;
  /** Where the topic was found: the title, only the description, or the buyer's name. */
  matched_in: "title" | "description" | "buyer_name";
}

export interface SignalFinding extends FindingBase {
  signal_id: number;
  signal_type: SignalType;
  cpv: string;
  buyer: PartyRef;
  window_start: string;
  window_end: string;
  /** Title of the tender of the signal's newest basis award. */
  contract_title: string | null;
}

export interface CompanyFinding extends FindingBase {
  company: PartyRef;
  /** Matching awards won (among the newest 10,000 matching awards). */
  matching_awards: number;
  last_award_date: string | null;
  /** CPV divisions of those awards. */
  cpv_divisions: string[];
  /** Open matching tenders (GET /v1/companies/{id}/opportunities' window) in one of those divisions. */
  open_opportunities: number;
}

export interface BuyerFinding extends FindingBase {
  buyer: PartyRef;
  /** Matching tenders published in the last 12 months. */
  tenders_last_12_months: number;
  last_publication_date: string;
  /** The buyer's open renewal signals (any CPV). */
  open_renewal_signals: number;
}

export interface ResearchBrief {
  query: string;
  as_of: string;
  confidence: Confidence;
  summary: string;
  counts: {
    matching_tenders: number;
    matching_tenders_exact: boolean;
    matching_awards: number;
    matching_awards_exact: boolean;
    open_renewal_signals: number;
    buyers_named: number;
    companies_named: number;
  };
  findings: {
    recent_tenders: TenderFinding[];
    renewal_signals: SignalFinding[];
    company_opportunities: CompanyFinding[];
    active_buyers: BuyerFinding[];
  };
  rules: { matching: string; confidence: string; finding_confidence: string; limit: string };
}

export interface ResearchResult {
  brief: ResearchBrief;
  provenance: Provenance[];
}

const RULES: ResearchBrief["rules"] = {
  matching:
    "The query is matched as Spanish full text (stemmed, accent- and case-insensitive) against tender titles " +
    "and descriptions, and as a name fragment against buyer and company names (at most 200 of each, lowest " +
    "ids first). Like search, the brief reads the newest 10,000 matching tenders (text, or a named buyer); " +
    "the matching awards are the awards of those tenders and the newest 10,000 awards of the named companies.",
  confidence:
    "high: at least 10 matching tenders and at least one open renewal signal or 10 matching awards; medium: " +
    "at least 3 matching tenders and awards together; low: less.",
  finding_confidence:
    "recent tender: high when the query's words are in the title or the buyer is named by it, medium when " +
    "only in the description; renewal signal: the signal's own confidence; company and buyer: high with 5 " +
    "or more matching records, medium with 2 to 4, low with 1.",
  limit:
    "limit caps the findings of the whole brief: the groups are filled in turns (recent tender, renewal " +
    "signal, company, buyer) in each group's order until limit is reached or every group is exhausted.",
};

function byCount(n: number): Confidence {
  return n >= 5 ? "high" : n >= 2 ? "medium" : "low";
}

const evidenceOf = (rows: EvidenceRow[] | null | undefined): Provenance[] => (rows ?? []).map(provenanceOf);

/** Takes findings from the groups in turns until `limit` are taken: what each group keeps. */
export function allocate(limit: number, sizes: readonly number[]): number[] {
  const taken = sizes.map(() => 0);
  let total = 0;
  let progress = true;
  while (total < limit && progress) {
    progress = false;
    for (const [i, size] of sizes.entries()) {
      if (total < limit && (taken[i] as number) < size) {
        taken[i] = (taken[i] as number) + 1;
        total++;
        progress = true;
      }
    }
  }
  return taken;
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

function summaryOf(
  brief: Omit<ResearchBrief, "summary" | "rules" | "confidence">,
  topCompany: CompanyFinding | undefined,
  topBuyer: BuyerFinding | undefined,
  firstSignal: SignalFinding | undefined,
  newest: TenderFinding | undefined,
): string {
  const { counts, query } = brief;
  if (counts.matching_tenders === 0 && counts.matching_awards === 0 && counts.open_renewal_signals === 0) {
    return `Nothing matches "${query}": no tender, award or renewal signal in the data, and no buyer or company of that name.`;
  }
  const sentences: string[] = [];
  const tenders = `${counts.matching_tenders_exact ? "" : "more than "}${plural(
    counts.matching_tenders,
    "tender matches",
    "tenders match",
  )} "${query}"`;
  sentences.push(
    newest
      ? `${tenders}; the newest, "${newest.title ?? "untitled"}", was published${
          newest.buyer ? ` by ${newest.buyer.name}` : ""
        } on ${newest.publication_date ?? "an unknown date"}.`
      : `${tenders}.`,
  );
  sentences.push(
    firstSignal
      ? `${plural(counts.open_renewal_signals, "open renewal signal points", "open renewal signals point")} at matching contracts or named buyers; the earliest window opens on ${firstSignal.window_start} (${firstSignal.buyer.name}, ${firstSignal.signal_type}, ${firstSignal.confidence} confidence).`
      : "No open renewal signal points at a matching contract or a named buyer.",
  );
  if (topCompany) {
    sentences.push(
      `${topCompany.company.name} won the most matching awards (${topCompany.matching_awards}); ${plural(
        topCompany.open_opportunities,
        "open matching tender is",
        "open matching tenders are",
      )} in its CPV divisions.`,
    );
  }
  if (topBuyer) {
    sentences.push(
      `${topBuyer.buyer.name} published the most matching tenders in the last 12 months (${topBuyer.tenders_last_12_months}).`,
    );
  }
  return sentences.join(" ");
}

/**
 * A deterministic research brief for a topic (docs/decisions.md, Research brief): recent matching tenders,
 * open renewal signals on matching contracts, the companies that win matching awards with their open
 * opportunities, and the buyers most active on the topic, each finding with its evidence and an
 * evidence-strength label, and a summary built from the counts, names and dates found. No language model and
 * no external call: the same data and day give the same bytes.
 */
export async function researchBrief({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: ResearchInput;
}): Promise<ResearchResult> {
  const db = readerOf(ctx);
  const now = ctx.now();
  const today = calendarDate(now);
  const query = input.query.trim();
  const [searchable, buyerIds, companyIds] = await Promise.all([
    /[\p{L}\p{N}]/u.test(query) ? hasSearchableWords(db, query) : Promise.resolve(false),
    query.length >= 2 ? partyIdsNamedLike(db, "buyer", query) : Promise.resolve([]),
    query.length >= 2 ? partyIdsNamedLike(db, "company", query) : Promise.resolve([]),
  ]);
  const scope: ResearchScope = {
    q: searchable ? query : null,
    buyerIds: buyerIds.slice(0, NAMED_PARTIES_MAX),
    companyIds: companyIds.slice(0, NAMED_PARTIES_MAX),
    today,
    now,
    limit: input.limit,
  };
  // The text is matched once, on tenders; every other read starts from that window (the awards are those of
  // its tenders and of the named companies).
  const tenderWindow = await matchedTenderWindow(db, scope);
  const byIds: ResearchScope = { ...scope, tenderWindow };
  const [companies, tenders, signals, open, buyers] = await Promise.all([
    matchedCompanies(db, byIds),
    matchedTenders(db, byIds),
    matchedSignals(db, byIds),
    openMatchedTenders(db, byIds, OPPORTUNITY_WINDOW_DAYS),
    activeBuyers(db, byIds, addMonths(today, -12)),
  ]);

  const tenderFindings: TenderFinding[] = tenders.newest.map((t) => ({
    tender_id: t.id,
    title: t.title,
    buyer: partyRef(t.buyer_id, t.buyer_name),
    publication_date: t.publication_date,
    deadline: t.deadline ? t.deadline.toISOString() : null,
    cpv_main: t.cpv_main,
    estimated_value: t.estimated_value,
    currency: t.currency,
    procedure_type: t.procedure_type as ProcedureType | null,
    contract_type: t.contract_type as ContractType | null,
    status: effectiveStatus(t.status as TenderStatus | null, t.deadline, now),
    matched_in: t.in_title ? "title" : t.in_text ? "description" : "buyer_name",
    confidence: t.in_title || !t.in_text ? "high" : "medium",
    evidence: [provenanceOf(t)],
  }));
  const signalFindings: SignalFinding[] = signals.first.map((s) => ({
    signal_id: s.id,
    signal_type: s.signal_type as SignalType,
    cpv: s.cpv,
    buyer: { id: s.buyer_id, name: s.buyer_name },
    window_start: s.window_start,
    window_end: s.window_end,
    contract_title: s.tender_title,
    confidence: s.confidence as Confidence,
    evidence: [provenanceOf(s)],
  }));
  const companyFindings: CompanyFinding[] = companies.top.map((c) => {
    const divisions = new Set(c.divisions);
    return {
      company: { id: c.company_id, name: c.company_name },
      matching_awards: c.wins,
      last_award_date: c.last_win,
      cpv_divisions: c.divisions,
      open_opportunities: open.filter((t) => t.divisions.some((d) => divisions.has(d))).length,
      confidence: byCount(c.wins),
      evidence: evidenceOf(c.evidence),
    };
  });
  const buyerFindings: BuyerFinding[] = buyers.map((b) => ({
    buyer: { id: b.buyer_id, name: b.buyer_name },
    tenders_last_12_months: b.tenders,
    last_publication_date: b.last_publication,
    open_renewal_signals: b.open_signals,
    confidence: byCount(b.tenders),
    evidence: evidenceOf(b.evidence),
  }));

  const [nTenders, nSignals, nCompanies, nBuyers] = allocate(input.limit, [
    tenderFindings.length,
    signalFindings.length,
    companyFindings.length,
    buyerFindings.length,
  ]);
  const findings: ResearchBrief["findings"] = {
    recent_tenders: tenderFindings.slice(0, nTenders),
    renewal_signals: signalFindings.slice(0, nSignals),
    company_opportunities: companyFindings.slice(0, nCompanies),
    active_buyers: buyerFindings.slice(0, nBuyers),
  };
  const counts: ResearchBrief["counts"] = {
    matching_tenders: Math.min(tenders.matched, SEARCH_WINDOW),
    matching_tenders_exact: tenders.matched <= SEARCH_WINDOW,
    matching_awards: Math.min(companies.matched, SEARCH_WINDOW),
    // The awards are those of the tender window: a count over a capped window is a lower bound.
    matching_awards_exact: companies.matched <= SEARCH_WINDOW && tenders.matched <= SEARCH_WINDOW,
    open_renewal_signals: signals.total,
    buyers_named: scope.buyerIds.length,
    companies_named: scope.companyIds.length,
  };
  const confidence: Confidence =
    counts.matching_tenders >= 10 && (counts.open_renewal_signals >= 1 || counts.matching_awards >= 10)
      ? "high"
      : counts.matching_tenders + counts.matching_awards >= 3
        ? "medium"
        : "low";
  const brief: ResearchBrief = {
    query,
    as_of: today,
    confidence,
    summary: summaryOf(
      { query, as_of: today, counts, findings },
      companyFindings[0],
      buyerFindings[0],
      signalFindings[0],
      tenderFindings[0],
    ),
    counts,
    findings,
    rules: RULES,
  };
  const provenance: Provenance[] = [];
  const seen = new Set<string>();
  for (const finding of [
    ...findings.recent_tenders,
    ...findings.renewal_signals,
    ...findings.company_opportunities,
    ...findings.active_buyers,
  ]) {
    for (const p of finding.evidence) {
      const key = `${p.source}|${p.source_ref}`;
      if (!seen.has(key)) {
        seen.add(key);
        provenance.push(p);
      }
    }
  }
  return { brief, provenance };
}
