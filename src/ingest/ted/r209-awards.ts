import type { FieldError, NormalizedAward } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, text } from "../xml/element.ts";
import { ted } from "./namespaces.ts";
import type { R209Lot } from "./r209-lots.ts";
import { readR209Winner } from "./r209-parties.ts";
import { parseAmount, parseCurrency, parseDate, readCount } from "./values.ts";

/** Form-level facts an award inherits. */
export interface R209AwardContext {
  /** `PROCEDURE/FRAMEWORK` is present. */
  framework: boolean;
  cpvMain: string | null;
  /** Lots by `LOT_NO`. */
  lots: ReadonlyMap<string, R209Lot>;
}

/**
 * R2.0.9 has no winner-selection code; the element present says it. They are mapped to the eForms BT-142
 * codes (as OP's converter does) so that awards read the same in both formats.
 */
const AWARDED = "selec-w";
const NOT_AWARDED = "clos-nw";

/**
 * One award per `AWARD_CONTRACT` (F03). The R2.0.9 twin of eforms-awards.ts, with the same conventions:
 * - `value`: `VALUES/VAL_TOTAL` (ex-VAT). In a framework it is the ceiling (ted.md §6.2: every award of a
 *   multi-supplier framework repeats it), so `valueIsCeiling` is true whenever a framework award has one.
 *   A range (`VAL_RANGE_TOTAL`) is not one value and stays null; `VAL_ESTIMATED_TOTAL` is an estimate.
 * - `awardDate`: `DATE_CONCLUSION_CONTRACT`, the only date F03 gives; it also makes `contractSigned` true.
 * - the winner: one `CONTRACTOR`, unpacked into a group when it is a comma-joined list of companies
 *   (party.ts); several `CONTRACTOR`s (`AWARDED_TO_GROUP`) are one group winner, the first listed as lead.
 * - `NO_AWARDED_CONTRACT` gives an award without winner, value, dates or extensions.
 */
export function readR209Awards(
  form: XmlElement,
  ctx: R209AwardContext,
  errors: FieldError[],
): NormalizedAward[] {
  return children(form, ...ted("AWARD_CONTRACT")).map((award, i) => {
    const lot = text(child(award, ...ted("LOT_NO")));
    const field = `awards[${attr(award, "ITEM") ?? i}]`;
    const lotInfo = lot === null ? undefined : ctx.lots.get(lot);
    const awarded = child(award, ...ted("AWARDED_CONTRACT"));
    const resultCode = awarded ? AWARDED : child(award, ...ted("NO_AWARDED_CONTRACT")) ? NOT_AWARDED : null;
    const valueEl = path(awarded, [ted("VALUES"), ted("VAL_TOTAL")]) ?? child(awarded, ...ted("VAL_TOTAL"));
    const value = parseAmount(text(valueEl), `${field}.value`, errors);
    const concluded = parseDate(
      text(child(awarded, ...ted("DATE_CONCLUSION_CONTRACT"))),
      `${field}.awardDate`,
      errors,
    );
    return {
      lot,
      resultCode,
      awardDate: concluded,
      winner: awarded ? readR209Winner(awarded, `${field}.winner`, errors) : null,
      value,
      valuePayable: null,
      currency: value === null ? null : parseCurrency(attr(valueEl, "CURRENCY"), `${field}.currency`, errors),
      biddersCount: readCount(
        path(awarded, [ted("TENDERS"), ted("NB_TENDERS_RECEIVED")]),
        `${field}.biddersCount`,
        errors,
      ),
      framework: ctx.framework,
      valueIsCeiling: ctx.framework && value !== null,
      durationMonths: awarded ? (lotInfo?.durationMonths ?? null) : null,
      // DATE_START is the start the form plans (F02's lot duration).
      startDate: awarded ? (lotInfo?.startDate ?? null) : null,
      startDateKind: awarded && lotInfo?.startDate ? "planned" : null,
      endDate: awarded ? (lotInfo?.endDate ?? null) : null,
      extensionText: awarded ? (lotInfo?.extensionText ?? null) : null,
      // R2.0.9 publishes no structured extension period or end (r209-lots.ts).
      extensionMonths: null,
      extensionEndDate: null,
      contractSigned: concluded !== null,
      cpv: lotInfo?.cpvs[0] ?? ctx.cpvMain,
    };
  });
}
