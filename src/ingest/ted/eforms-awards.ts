import type { FieldError, NormalizedAward, NormalizedWinner } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, pathAll, text } from "../xml/element.ts";
import type { EformsLot } from "./eforms-lots.ts";
import { referencedIds } from "./eforms-orgs.ts";
import { readTenderingPartyWinner } from "./eforms-parties.ts";
import { cac, cbc, efac, efbc } from "./namespaces.ts";
import { fieldError, parseCurrency, readAmount, readCount, readDate } from "./values.ts";

/** Notice-level facts an award falls back on. */
export interface EformsAwardContext {
  /** Lots by `cbc:ID`. */
  lots: ReadonlyMap<string, EformsLot>;
  /** The notice is a framework (any lot, BT-271, BT-118, BT-709 or BT-768 says so). */
  framework: boolean;
  cpvMain: string | null;
  organizations: ReadonlyMap<string, XmlElement>;
  /** Root `cac:TenderResult/cbc:AwardDate`, placeholder already dropped: the last resort for a date. */
  fallbackAwardDate: string | null;
}

/** BT-142 winner-selection-status codes. */
const WINNER_CHOSEN = "selec-w";
const NO_WINNER_CODES: ReadonlySet<string> = new Set(["clos-nw", "open-nw"]);

/** The `efac:NoticeResult` children, indexed by their technical ids. */
interface ResultIndex {
  lotTenders: Map<string, XmlElement>;
  tenderingParties: Map<string, XmlElement>;
  contracts: Map<string, XmlElement>;
  /** The contract covering each tender (`SettledContract/efac:LotTender/cbc:ID`, BT-3202). */
  contractOfTender: Map<string, XmlElement>;
}

/**
 * One award per winning tender of each `efac:LotResult`, following the id chain of ted.md §5.3:
 * LotResult → LotTender (BT-720 value) → TenderingParty → Tenderer → Organization. Ids are matched on their
 * text. A result with no winner (`clos-nw`, `open-nw`) or no winning tender gives one award without
 * winner or value.
 *
 * - `value`: in a framework, the lot's maximum value (BT-709) when published, else the tender value
 *   (BT-720). In a framework neither is spend (a ceiling, or a unit/reference price: EUR 714 in
 *   00611835-2024), so `valueIsCeiling` is true whenever a framework award has a value, as for PLACSP.
 *   `valuePayable` is always null: eForms amounts exclude VAT and no tax-inclusive figure is published.
 * - `awardDate`: the winner decision date (BT-1451) of the tender's contract, else its conclusion date
 *   (BT-145), else the root `TenderResult/AwardDate`; the `2000-01-01` placeholder never counts.
 * - `contractSigned`: the contract has a conclusion date (BT-145).
 * - `biddersCount`: only the `ReceivedSubmissionsStatistics` whose code is `tenders` (BT-760); other codes
 *   (`t-esubm`, `t-sme`, …) and uncoded counts are not a number of tenders received.
 * - duration, start and end: the lot's planned period (eForms has none on the award); null without winner.
 *   Extensions likewise: the lot's `ContractExtension` (eforms-lots.ts), null without winner.
 */
export function readEformsAwards(
  extension: XmlElement | null,
  ctx: EformsAwardContext,
  errors: FieldError[],
): NormalizedAward[] {
  const noticeResult = child(extension, ...efac("NoticeResult"));
  if (!noticeResult) {
    return [];
  }
  const index = indexResult(noticeResult);
  const awards: NormalizedAward[] = [];
  for (const [i, result] of children(noticeResult, ...efac("LotResult")).entries()) {
    const field = `results[${text(child(result, ...cbc("ID"))) ?? i}]`;
    awards.push(...readLotResult(result, field, index, ctx, errors));
  }
  return awards;
}

function indexResult(noticeResult: XmlElement): ResultIndex {
  const byId = (name: string): Map<string, XmlElement> => {
    const map = new Map<string, XmlElement>();
    for (const el of children(noticeResult, ...efac(name))) {
      const id = text(child(el, ...cbc("ID")));
      if (id !== null && !map.has(id)) {
        map.set(id, el);
      }
    }
    return map;
  };
  const contracts = byId("SettledContract");
  const contractOfTender = new Map<string, XmlElement>();
  for (const contract of contracts.values()) {
    for (const tenderId of referencedIds(contract, efac("LotTender"))) {
      if (!contractOfTender.has(tenderId)) {
        contractOfTender.set(tenderId, contract);
      }
    }
  }
  return {
    lotTenders: byId("LotTender"),
    tenderingParties: byId("TenderingParty"),
    contracts,
    contractOfTender,
  };
}

function readLotResult(
  result: XmlElement,
  field: string,
  index: ResultIndex,
  ctx: EformsAwardContext,
  errors: FieldError[],
): NormalizedAward[] {
  const resultCode = readResultCode(result, field, errors);
  const lot = text(path(result, [efac("TenderLot"), cbc("ID")]));
  const lotInfo = lot === null ? undefined : ctx.lots.get(lot);
  const maximum = path(result, [efac("FrameworkAgreementValues"), cbc("MaximumValueAmount")]);
  const resultContracts = referencedIds(result, efac("SettledContract"))
    .map((id) => index.contracts.get(id))
    .filter((contract): contract is XmlElement => contract !== undefined);
  const framework =
    (lotInfo?.framework ?? ctx.framework) ||
    maximum !== null ||
    resultContracts.some(
      (contract) => text(child(contract, ...efbc("ContractFrameworkIndicator"))) === "true",
    );

  const base = {
    lot,
    resultCode,
    biddersCount: readBidders(result, `${field}.biddersCount`, errors),
    framework,
    cpv: lotInfo?.project.cpvs[0] ?? ctx.cpvMain,
  };
  const tenderIds = referencedIds(result, efac("LotTender"));
  const noWinner = resultCode !== null && NO_WINNER_CODES.has(resultCode);
  if (noWinner || tenderIds.length === 0) {
    if (resultCode === WINNER_CHOSEN) {
      errors.push({ field, reason: "winner chosen (selec-w) but no winning tender referenced" });
    }
    const dates = contractDates(resultContracts[0], field, ctx, errors);
    return [
      {
        ...base,
        awardDate: dates.awardDate,
        winner: null,
        value: null,
        valuePayable: null,
        currency: null,
        valueIsCeiling: false,
        durationMonths: null,
        startDate: null,
        startDateKind: null,
        endDate: null,
        extensionText: null,
        extensionMonths: null,
        extensionEndDate: null,
        contractSigned: false,
      },
    ];
  }

  return tenderIds.map((tenderId): NormalizedAward => {
    const tenderField = tenderIds.length === 1 ? field : `${field}.tenders[${tenderId}]`;
    const tender = index.lotTenders.get(tenderId);
    if (tender === undefined) {
      errors.push({ field: tenderField, reason: `tender ${tenderId} not found` });
    }
    const valueEl =
      framework && maximum !== null
        ? maximum
        : path(tender, [cac("LegalMonetaryTotal"), cbc("PayableAmount")]);
    const value = readAmount(valueEl, `${tenderField}.value`, errors);
    const currency =
      value === null ? null : parseCurrency(attr(valueEl, "currencyID"), `${tenderField}.currency`, errors);
    const contract = index.contractOfTender.get(tenderId) ?? loneUnassignedContract(resultContracts);
    const dates = contractDates(contract, tenderField, ctx, errors);
    return {
      ...base,
      awardDate: dates.awardDate,
      winner: readWinner(tender, index, ctx, `${tenderField}.winner`, errors),
      value,
      valuePayable: null,
      currency,
      valueIsCeiling: framework && value !== null,
      durationMonths: lotInfo?.project.durationMonths ?? null,
      // BT-536 is the start the notice plans; eForms publishes no actual start.
      startDate: lotInfo?.project.startDate ?? null,
      startDateKind: lotInfo?.project.startDate ? "planned" : null,
      endDate: lotInfo?.project.endDate ?? null,
      extensionText: lotInfo?.project.extension.text ?? null,
      extensionMonths: lotInfo?.project.extension.months ?? null,
      extensionEndDate: lotInfo?.project.extension.endDate ?? null,
      contractSigned: dates.concluded !== null,
    };
  });
}

/**
 * BT-3202 (`SettledContract/efac:LotTender`) ties a contract to its tenders. When it is not published, the
 * result's only contract can only be this tender's; a contract that lists other tenders is not.
 */
function loneUnassignedContract(resultContracts: readonly XmlElement[]): XmlElement | undefined {
  const [only] = resultContracts;
  if (resultContracts.length !== 1 || only === undefined) {
    return undefined;
  }
  return referencedIds(only, efac("LotTender")).length === 0 ? only : undefined;
}

function readResultCode(result: XmlElement, field: string, errors: FieldError[]): string | null {
  const raw = text(child(result, ...cbc("TenderResultCode")));
  if (raw === null) {
    return null;
  }
  if (raw !== WINNER_CHOSEN && !NO_WINNER_CODES.has(raw)) {
    fieldError(errors, `${field}.resultCode`, "not a winner-selection-status code", raw);
    return null;
  }
  return raw;
}

/** BT-759 of the statistic coded `tenders` (BT-760); the code's `@listName` is not trusted (ted.md §6.4). */
function readBidders(result: XmlElement, field: string, errors: FieldError[]): number | null {
  const statistic = children(result, ...efac("ReceivedSubmissionsStatistics")).find(
    (s) => text(child(s, ...efbc("StatisticsCode"))) === "tenders",
  );
  return readCount(child(statistic, ...efbc("StatisticsNumeric")), field, errors);
}

function contractDates(
  contract: XmlElement | undefined,
  field: string,
  ctx: EformsAwardContext,
  errors: FieldError[],
): { awardDate: string | null; concluded: string | null } {
  const decided = readDate(child(contract, ...cbc("AwardDate")), `${field}.awardDate`, errors);
  const concluded = readDate(child(contract, ...cbc("IssueDate")), `${field}.contractDate`, errors);
  return { awardDate: decided ?? concluded ?? ctx.fallbackAwardDate, concluded };
}

function readWinner(
  tender: XmlElement | undefined,
  index: ResultIndex,
  ctx: EformsAwardContext,
  field: string,
  errors: FieldError[],
): NormalizedWinner | null {
  if (tender === undefined) {
    return null;
  }
  const partyId = text(path(tender, [efac("TenderingParty"), cbc("ID")]));
  const party = partyId === null ? undefined : index.tenderingParties.get(partyId);
  if (party === undefined) {
    errors.push({ field, reason: `tendering party ${partyId ?? "(no id)"} not found` });
    return null;
  }
  return readTenderingPartyWinner(party, ctx.organizations, field, errors);
}

/** Whether the notice result itself marks a framework: BT-118, any BT-709, any BT-768 `true`. */
export function resultSaysFramework(extension: XmlElement | null): boolean {
  const noticeResult = child(extension, ...efac("NoticeResult"));
  if (!noticeResult) {
    return false;
  }
  return (
    child(noticeResult, ...efbc("OverallMaximumFrameworkContractsAmount")) !== null ||
    pathAll(noticeResult, [efac("LotResult"), efac("FrameworkAgreementValues"), cbc("MaximumValueAmount")])
      .length > 0 ||
    pathAll(noticeResult, [efac("SettledContract"), efbc("ContractFrameworkIndicator")]).some(
      (el) => text(el) === "true",
    )
  );
}
