import { findTenderIdBySourceRef } from "../../db/queries/tenders.ts";
import type { DomainContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { getTender, type TenderResult } from "./get-tender.ts";

/** The tender stored under an upstream reference (PLACSP entry id, TED publication number), in the Tender shape. */
export async function inspectTender({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: { sourceRef: string };
}): Promise<TenderResult> {
  const id = await findTenderIdBySourceRef(ctx.db, input.sourceRef);
  if (id === undefined) {
    throw new NotFoundError(
      `No tender with source_ref ${input.sourceRef}.`,
      "Use the upstream reference exactly as stored: the PLACSP entry id URI or the TED publication number.",
    );
  }
  return getTender({ ctx, input: { id } });
}
