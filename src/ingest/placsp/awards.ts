import type { FieldError, NormalizedAward, NormalizedWinner } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { child, children, path, text } from "../xml/element.ts";
import { SIGNED_RESULT_CODE, TENDER_RESULT_CODES, VOID_RESULT_CODES } from "./codes.ts";
import { cac, cbc } from "./namespaces.ts";
import { readWinner } from "./parties.ts";
import type { ProjectInfo } from "./project.ts";
import { readAmount, readCode, readCount, readCountry, readCurrency, readDate } from "./values.ts";

/** Folder-level facts an award inherits when its lot does not state them. */
export interface AwardContext {
  framework: boolean;
  cpvMain: string | null;
  folder: ProjectInfo;
  /** Lots by `ProcurementProjectLot/cbc:ID`. */
  lots: ReadonlyMap<string, ProjectInfo>;
}

/**
 * One award per `cac:TenderResult`, or one per winner when a result names several `cac:WinningParty`.
 *
 * - Void results (desierto, desistimiento, renuncia) have no winner, value, dates or duration, even when
 *   the notice shows amounts: there is no contract.
 * - Several winners on one result share one published amount that cannot be split per winner, so `value`
 *   and `valuePayable` are null on each of them (with a `FieldError`) rather than repeated.
 * - `startDate` is the contract's start: `TenderResult/cbc:StartDate` (its entry into force, `startDateKind`
 *   `actual`) when published, else the planned start, `PlannedPeriod/StartDate` of the lot, else of the folder
 *   (`planned`). `Contract/IssueDate` is the signature date, not a start date; it only counts as evidence that
 *   the contract is signed, as the actual start does (a planned start never does).
 * - `endDate` is only a published one (the lot's, else the folder's `PlannedPeriod/EndDate`); deriving it
 *   from start + duration is left to the renewal analytics, which label such derivations.
 * - Extensions (`ContractExtension`) are inherited like duration and end date: each of text, months and end
 *   date is the lot's when its lot states it, else the folder's. Void results have none.
 */
export function readAwards(
  cfs: XmlElement | null,
  ctx: AwardContext,
  errors: FieldError[],
): NormalizedAward[] {
  const awards: NormalizedAward[] = [];
  for (const [i, result] of children(cfs, ...cac("TenderResult")).entries()) {
    awards.push(...readResult(result, `tenderResults[${i}]`, ctx, errors));
  }
  return awards;
}

function readResult(
  result: XmlElement,
  field: string,
  ctx: AwardContext,
  errors: FieldError[],
): NormalizedAward[] {
  const resultCode = readCode(
    child(result, ...cbc("ResultCode")),
    TENDER_RESULT_CODES,
    `${field}.resultCode`,
    errors,
  );
  const isVoid = resultCode !== null && VOID_RESULT_CODES.has(resultCode);
  const project = child(result, ...cac("AwardedTenderedProject"));
  const lot = text(child(project, ...cbc("ProcurementProjectLotID")));
  const lotInfo = lot === null ? undefined : ctx.lots.get(lot);
  const parties = isVoid ? [] : children(result, ...cac("WinningParty"));

  let value: number | null = null;
  let valuePayable: number | null = null;
  let currency: string | null = null;
  if (!isVoid) {
    const total = child(project, ...cac("LegalMonetaryTotal"));
    const exclusive = child(total, ...cbc("TaxExclusiveAmount"));
    const payable = child(total, ...cbc("PayableAmount"));
    value = readAmount(exclusive, `${field}.value`, errors);
    valuePayable = readAmount(payable, `${field}.valuePayable`, errors);
    if (value !== null || valuePayable !== null) {
      currency = readCurrency(value !== null ? exclusive : payable, `${field}.currency`, errors);
    }
    if (parties.length > 1 && (value !== null || valuePayable !== null)) {
      errors.push({
        field: `${field}.value`,
        reason: `${parties.length} winners share one published amount; it is not attributed to any of them`,
      });
      value = null;
      valuePayable = null;
      currency = null;
    }
  }

  const actualStart = isVoid
    ? null
    : readDate(child(result, ...cbc("StartDate")), `${field}.startDate`, errors);
  const plannedStart = isVoid ? null : (lotInfo?.plannedStartDate ?? ctx.folder.plannedStartDate);
  const signedOn = isVoid
    ? null
    : readDate(path(result, [cac("Contract"), cbc("IssueDate")]), `${field}.contractIssueDate`, errors);
  const nationality =
    parties.length === 1
      ? readCountry(child(result, ...cbc("AwardedOwnerNationalityCode")), `${field}.nationality`, errors)
      : null;
  const winners: (NormalizedWinner | null)[] =
    parties.length === 0
      ? [null]
      : parties.map((party, j) => readWinner(party, nationality, `${field}.winners[${j}]`, errors));

  const base: Omit<NormalizedAward, "winner"> = {
    lot,
    resultCode,
    awardDate: readDate(child(result, ...cbc("AwardDate")), `${field}.awardDate`, errors),
    value,
    valuePayable,
    currency,
    biddersCount: readCount(child(result, ...cbc("ReceivedTenderQuantity")), `${field}.biddersCount`, errors),
    framework: ctx.framework,
    valueIsCeiling: ctx.framework && value !== null,
    durationMonths: isVoid ? null : (lotInfo?.durationMonths ?? ctx.folder.durationMonths),
    startDate: actualStart ?? plannedStart,
    startDateKind: actualStart !== null ? "actual" : plannedStart !== null ? "planned" : null,
    endDate: isVoid ? null : (lotInfo?.plannedEndDate ?? ctx.folder.plannedEndDate),
    extensionText: isVoid ? null : (lotInfo?.extension.text ?? ctx.folder.extension.text),
    extensionMonths: isVoid ? null : (lotInfo?.extension.months ?? ctx.folder.extension.months),
    extensionEndDate: isVoid ? null : (lotInfo?.extension.endDate ?? ctx.folder.extension.endDate),
    contractSigned:
      !isVoid && (resultCode === SIGNED_RESULT_CODE || actualStart !== null || signedOn !== null),
    cpv: lotInfo?.cpvs[0] ?? ctx.cpvMain,
  };
  return winners.map((winner) => ({ ...base, winner }));
}
