import type { z } from "zod";
import { listAwardsWithTender } from "../../db/queries/awards.ts";
import { countCompanyAwards } from "../../db/queries/companies.ts";
import {
  type AwardWithTender,
  hasCeilings,
  noticesOfAwards,
  toAwardWithTender,
} from "../awards/award-with-tender.ts";
import { FRAMEWORK_CEILING_CAVEAT } from "../caveats.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { PagedIdInputSchema } from "../params.ts";
import type { Provenance } from "../provenance.ts";
import { companyNotFound } from "./not-found.ts";

export interface CompanyAwardsResult {
  awards: AwardWithTender[];
  page: number;
  total: number;
  provenance: Provenance[];
  caveats: string[] | undefined;
}

/** Input: the parameters of GET /v1/companies/{id}/awards and the arguments of the MCP tool get_company_awards. */
export const CompanyAwardsInputSchema = PagedIdInputSchema;

/**
 * One page of the awards a company won, newest first (award date descending, unknown dates last, then id
 * descending: a total order, so walking the pages returns every award exactly once). A page beyond the last
 * is an empty list with the real total. Provenance names the notices of the page's awards.
 */
export async function listCompanyAwards({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: z.output<typeof CompanyAwardsInputSchema>;
}): Promise<CompanyAwardsResult> {
  const db = readerOf(ctx);
  const total = await countCompanyAwards(db, input.id);
  if (total === undefined) {
    throw companyNotFound(input.id);
  }
  const offset = (input.page - 1) * input.size;
  const rows =
    offset < total ? await listAwardsWithTender(db, { winner: input.id }, { limit: input.size, offset }) : [];
  return {
    awards: rows.map(toAwardWithTender),
    page: input.page,
    total,
    provenance: noticesOfAwards(rows),
    caveats: hasCeilings(rows) ? [FRAMEWORK_CEILING_CAVEAT] : undefined,
  };
}
