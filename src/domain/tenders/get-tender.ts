import type { z } from "zod";
import { findLinkedNotices } from "../../db/queries/links.ts";
import type { AwardRow, TenderRow } from "../../db/queries/tenders.ts";
import { findTenderById, listAwardsByTender } from "../../db/queries/tenders.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { IdInputSchema } from "../params.ts";
import { type PartyRef, partyRef } from "../party.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import {
  type ContractType,
  effectiveStatus,
  type NoticeType,
  type ProcedureType,
  type SourceCodes,
  type StartDateKind,
  type TenderStatus,
} from "../vocabulary.ts";

export interface Award {
  id: number;
  tender_id: number | null;
  source_ref: string | null;
  award_date: string | null;
  lot: string | null;
  winner: PartyRef | null;
  value: number | null;
  currency: string | null;
  bidders_count: number | null;
  framework: boolean;
  duration_months: number | null;
  /** The contract's start: actual or planned, as `start_date_kind` says. */
  start_date: string | null;
  start_date_kind: StartDateKind | null;
  end_date: string | null;
}

/**
 * The coded fields are in the common vocabulary (domain/vocabulary.ts, docs/vocabulary.md), whichever source the
 * notice came from; `source_codes` holds the codes as published.
 */
export interface Tender {
  id: number;
  source_ref: string | null;
  notice_type: NoticeType | null;
  publication_date: string | null;
  title: string | null;
  description: string | null;
  cpv_main: string | null;
  /** cpv_main's labels when the CPV reference data is loaded; null otherwise. */
  cpv_main_label_en: string | null;
  cpv_main_label_es: string | null;
  cpv_all: string[];
  procedure_type: ProcedureType | null;
  contract_type: ContractType | null;
  /** Where the procedure stands; `open` with a past deadline reads `evaluation` (`effectiveStatus`). */
  status: TenderStatus | null;
  source_codes: SourceCodes;
  deadline: string | null;
  estimated_value: number | null;
  currency: string | null;
  nuts: string | null;
  /** The NUTS name when the NUTS reference data is loaded; null otherwise. */
  nuts_name: string | null;
  url: string | null;
  buyer: PartyRef | null;
  awards: Award[];
}

export interface TenderResult {
  tender: Tender;
  provenance: Provenance[];
  /** True when at least one award value is a framework ceiling rather than a spend figure. */
  hasCeilings: boolean;
}

/** Input: the parameters of GET /v1/tenders/{id} and the arguments of the MCP tool get_tender. */
export const GetTenderInputSchema = IdInputSchema;

/** One tender with its awards, in the spec's Tender shape, and where it comes from. */
export async function getTender({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: z.output<typeof GetTenderInputSchema>;
}): Promise<TenderResult> {
  const db = readerOf(ctx);
  const row = await findTenderById(db, input.id);
  if (!row) {
    throw new NotFoundError(
      `No tender with id ${input.id}.`,
      "Tender ids come from GET /v1/search results (field id, or tender_id on award rows).",
    );
  }
  const [awards, linked] = await Promise.all([listAwardsByTender(db, row.id), findLinkedNotices(db, row.id)]);
  return {
    tender: toTender(row, awards.map(toAward), ctx.now()),
    // A procedure published on both PLACSP and TED answers with both notices (docs/linking.md).
    provenance: [provenanceOf(row), ...linked.map(provenanceOf)],
    hasCeilings: awards.some((award) => award.value_is_ceiling && award.value !== null),
  };
}

/** The stored values are the vocabulary's: the migration's CHECK constraints hold the column to it. */
export function toTender(row: TenderRow, awards: Award[], now: Date): Tender {
  return {
    id: row.id,
    source_ref: row.source_ref,
    notice_type: row.notice_type as NoticeType | null,
    publication_date: row.publication_date,
    title: row.title,
    description: row.description,
    cpv_main: row.cpv_main,
    cpv_main_label_en: row.cpv_main_label_en,
    cpv_main_label_es: row.cpv_main_label_es,
    cpv_all: row.cpv_all,
    procedure_type: row.procedure_type as ProcedureType | null,
    contract_type: row.contract_type as ContractType | null,
    status: effectiveStatus(row.status as TenderStatus | null, row.deadline, now),
    source_codes: row.source_codes,
    deadline: row.deadline ? row.deadline.toISOString() : null,
    estimated_value: row.estimated_value,
    currency: row.currency,
    nuts: row.nuts,
    nuts_name: row.nuts_name,
    url: row.url,
    buyer: partyRef(row.buyer_id, row.buyer_name),
    awards,
  };
}

export function toAward(row: AwardRow): Award {
  return {
    id: row.id,
    tender_id: row.tender_id,
    source_ref: row.source_ref,
    award_date: row.award_date,
    lot: row.lot,
    winner:
      row.winner_company_id !== null && row.winner_company_name !== null
        ? { id: row.winner_company_id, name: row.winner_company_name }
        : null,
    value: row.value,
    currency: row.currency,
    bidders_count: row.bidders_count,
    framework: row.framework,
    duration_months: row.duration_months,
    start_date: row.start_date,
    start_date_kind: row.start_date_kind as StartDateKind | null,
    end_date: row.end_date,
  };
}
