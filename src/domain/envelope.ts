import { centsToUsd } from "../lib/money.ts";
import type { BuyerHistoryResult } from "./buyers/get-buyer-history.ts";
import { FRAMEWORK_CEILING_CAVEAT } from "./caveats.ts";
import type { CompanyResult } from "./companies/get-company.ts";
import type { CompanyAwardsResult } from "./companies/list-company-awards.ts";
import type { CompanyOpportunitiesResult } from "./companies/list-company-opportunities.ts";
import type { Provenance } from "./provenance.ts";
import { RENEWALS_METHODOLOGY, type RenewalsResult } from "./renewals/list-renewals.ts";
import { CONFIDENCE_SCALE, type Confidence } from "./renewals/signal.ts";
import type { ResearchResult } from "./research/research-brief.ts";
import type { SearchResult } from "./search/search-notices.ts";
import type { TenderResult } from "./tenders/get-tender.ts";

/**
 * The spec's `{data, meta}` envelope and, per verb, how its result fills it. Both surfaces answer with these
 * objects (REST as the response body, MCP as `structuredContent`), so the same input gives the same bytes on
 * both, request id aside.
 */

export interface Meta {
  request_id: string;
  price_usd: string;
  paid: boolean;
  provenance: Provenance[];
  page?: number;
  total?: number;
  total_exact?: boolean;
  caveats?: string[];
  score_explanation?: string;
  methodology?: string;
  confidence_scale?: Confidence[];
  generated_at?: string;
}

export interface MetaInput {
  priceCents: number;
  paid: boolean;
  provenance?: Provenance[];
  page?: number;
  total?: number;
  caveats?: string[];
  score_explanation?: string;
  methodology?: string;
  confidence_scale?: Confidence[];
  generated_at?: string;
}

export interface Envelope<T, M = Meta> {
  data: T;
  meta: M;
}

/** Builds the envelope every data answer has; optional meta fields appear only when set. */
export function buildEnvelope<T>(requestId: string, data: T, input: MetaInput): Envelope<T> {
  const { priceCents, paid, provenance, ...optional } = input;
  const meta: Meta = {
    request_id: requestId,
    price_usd: centsToUsd(priceCents),
    paid,
    provenance: provenance ?? [],
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) {
      Object.assign(meta, { [key]: value });
    }
  }
  return { data, meta };
}

/** A paid call: the request it answers and the price charged. */
export interface PaidCall {
  requestId: string;
  priceCents: number;
}

export function searchEnvelope(value: SearchResult, call: PaidCall) {
  const body = buildEnvelope(call.requestId, value.rows, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
    caveats: value.ceilings > 0 ? [FRAMEWORK_CEILING_CAVEAT] : undefined,
  });
  return {
    data: body.data,
    meta: { ...body.meta, page: value.page, total: value.total, total_exact: value.totalExact },
  };
}

export function tenderEnvelope(value: TenderResult, call: PaidCall) {
  return buildEnvelope(call.requestId, value.tender, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
    caveats: value.hasCeilings ? [FRAMEWORK_CEILING_CAVEAT] : undefined,
  });
}

export function companyEnvelope(value: CompanyResult, call: PaidCall) {
  return buildEnvelope(call.requestId, value.company, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
    caveats: value.caveats,
  });
}

export function companyAwardsEnvelope(value: CompanyAwardsResult, call: PaidCall) {
  return buildEnvelope(call.requestId, value.awards, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
    page: value.page,
    total: value.total,
    caveats: value.caveats,
  });
}

export function opportunitiesEnvelope(value: CompanyOpportunitiesResult, call: PaidCall) {
  return buildEnvelope(call.requestId, value.opportunities, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
    page: value.page,
    total: value.total,
    score_explanation: value.score_explanation,
    caveats: value.caveats,
  });
}

export function buyerHistoryEnvelope(value: BuyerHistoryResult, call: PaidCall) {
  return buildEnvelope(call.requestId, value.buyer, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
    caveats: value.caveats,
  });
}

export function renewalsEnvelope(value: RenewalsResult, call: PaidCall) {
  const body = buildEnvelope(
    call.requestId,
    { signals: value.signals },
    { priceCents: call.priceCents, paid: true, provenance: value.provenance },
  );
  return {
    data: body.data,
    meta: {
      ...body.meta,
      page: value.page,
      total: value.total,
      methodology: RENEWALS_METHODOLOGY,
      confidence_scale: [...CONFIDENCE_SCALE],
      backtest: value.backtest,
    },
  };
}

export function researchEnvelope(value: ResearchResult, call: PaidCall) {
  return buildEnvelope(call.requestId, value.brief, {
    priceCents: call.priceCents,
    paid: true,
    provenance: value.provenance,
  });
}
