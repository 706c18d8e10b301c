import type { AwardWithTenderRow, NoticeRow } from "../../db/queries/awards.ts";
import type { PartyRef } from "../party.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import { type Award, toAward } from "../tenders/get-tender.ts";

/** The tender an award belongs to, as company-awards and buyer-history show it (SPEC.md, Award). */
export interface TenderContext {
  id: number | null;
  source_ref: string | null;
  title: string | null;
  cpv_main: string | null;
  publication_date: string | null;
  buyer: PartyRef | null;
}

export interface AwardWithTender extends Award {
  tender: TenderContext;
}

export function toAwardWithTender(row: AwardWithTenderRow): AwardWithTender {
  return {
    ...toAward(row),
    tender: {
      id: row.tender_id,
      source_ref: row.tender_source_ref,
      title: row.tender_title,
      cpv_main: row.tender_cpv_main,
      publication_date: row.tender_publication_date,
      buyer:
        row.tender_buyer_id !== null && row.tender_buyer_name !== null
          ? { id: row.tender_buyer_id, name: row.tender_buyer_name }
          : null,
    },
  };
}

/** Whether any of these awards carries a framework ceiling rather than a spend figure. */
export function hasCeilings(rows: readonly { value: number | null; value_is_ceiling: boolean }[]): boolean {
  return rows.some((row) => row.value_is_ceiling && row.value !== null);
}

/** The upstream notices behind these rows, each once, in the order they first appear. */
export function noticesOf(rows: readonly NoticeRow[]): Provenance[] {
  const seen = new Map<string, Provenance>();
  for (const row of rows) {
    const key = `${row.source}\u0000${row.source_ref}`;
    if (!seen.has(key)) {
      seen.set(key, provenanceOf(row));
    }
  }
  return [...seen.values()];
}

/** `noticesOf` for award rows with tender context. */
export function noticesOfAwards(rows: readonly AwardWithTenderRow[]): Provenance[] {
  return noticesOf(
    rows.map((row) => ({
      source: row.tender_source,
      source_ref: row.tender_source_ref,
      url: row.tender_url,
    })),
  );
}
