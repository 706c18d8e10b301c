import { type SourceCodes, sourceCodesOf } from "../../domain/vocabulary.ts";
import type { FieldError, NormalizedAward, NormalizedTender, NormalizeResult } from "../model.ts";
import { mapCode } from "../vocabulary/map-code.ts";
import {
  TED_CONTRACT_TYPES,
  TED_FORM_TYPES,
  TED_NON_AWARD_OUTCOMES,
  TED_NOTICE_TYPES,
  TED_PROCEDURE_TYPES,
  TED_RESULT_OUTCOMES,
  type TedResult,
  tedContractType,
  tedStatus,
} from "../vocabulary/ted.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, pathAll, text } from "../xml/element.ts";
import { nuts0 } from "./countries.ts";
import { findPlacspReference } from "./cross-ref.ts";
import { readEformsAwards, resultSaysFramework } from "./eforms-awards.ts";
import type { EformsLot } from "./eforms-lots.ts";
import { readLots, readProject } from "./eforms-lots.ts";
import { eformsExtension, organizationsById } from "./eforms-orgs.ts";
import { readBuyer } from "./eforms-parties.ts";
import { TedNoticeError } from "./errors.ts";
import { pickLanguage } from "./language.ts";
import { cac, cbc, efac, efbc, efext, ext, isEformsRoot } from "./namespaces.ts";
import { normalizePublicationNumber, tedNoticeUrl } from "./publication-number.ts";
import { collapse, fieldError, parseCurrency, readAmount, readDate, readZonedInstant } from "./values.ts";

/**
 * Maps one eForms notice (UBL 2.3 `ContractNotice`, `ContractAwardNotice` or `PriorInformationNotice`)
 * to a `NormalizedTender` with its awards, following research note ted.md §5. Pure: no I/O, no clock.
 *
 * Conventions where the note leaves a choice:
 * - `sourceRef`: the canonical publication number (`611835-2024`) from `efac:Publication/
 *   efbc:NoticePublicationID` (OPP-010). A notice not yet published has none (the SDK examples): it is then
 *   keyed by its notice id and version (BT-701 + BT-757, `df45f4d1-…-01`), which can never collide with a
 *   publication number, and `url` is null.
 * - `upstreamUpdated`: the publication date (OPP-012) at 00:00 in its published offset. A TED notice never
 *   changes once published under its number (a change is a new notice with a new number), so any fixed
 *   instant of it works as a version stamp, and the publication day is what every channel (API, packages,
 *   R2.0.9) agrees on. Without one: the dispatch date and time (BT-05 `IssueDate` + `IssueTime`).
 * - `url`: the ted.europa.eu landing page of the publication number (publication-number.ts).
 * - `folderId`: the buyer's own reference (BT-22, `ProcurementProject/cbc:ID`), the model's "file number";
 *   not `cbc:ContractFolderID`, which in eForms is a technical procedure UUID.
 * - `title` / `description`: the procedure's (BT-21 / BT-24) in the language chosen by language.ts
 *   (Spanish, English, else first); the title with whitespace collapsed. Never the API's generated headline.
 * - `cpvMain`: the procedure's main CPV, else the first lot's; `cpvAll`: procedure then lots, deduplicated.
 * - `deadline`: the earliest lot deadline (eforms-lots.ts `readDeadline`).
 * - `estimatedValue` / `currency`: the procedure's BT-27 only. A framework maximum (BT-271) is a ceiling,
 *   not an estimate, and is never used here.
 * - `nuts`: place of performance (BT-5071) of the procedure, else of the first lot that has one, else the
 *   NUTS-0 of its country (BT-5141). The buyer's address is the buyer's `nuts`, not the tender's.
 * - `framework`: any lot's BT-765 is `fa-*`, or BT-271, BT-118, BT-709 or BT-768 is present.
 * - `durationMonths`: the procedure's BT-36, else the longest lot's.
 * - Coded fields are in the common vocabulary (ingest/vocabulary/ted.ts), the published codes in
 *   `sourceCodes` (BT-02 `notice`, BT-105 `procedure`, BT-23 `contract`, BT-01 `legal_basis`); an unknown code
 *   is kept there with a `FieldError` and a null common value. `contractType` is `concession` under the
 *   concessions directive (BT-01 32014L0023), else the contract nature.
 * - `status`: what the notice states (`tedStatus`): its form type, and for results its lot results (BT-142,
 *   with the no-winner reason BT-144) and concluded contracts (BT-145). `feed`: null.
 * - `crossRef`: a PLACSP procedure deeplink found in the notice (cross-ref.ts), else null.
 *
 * Throws `TedNoticeError` when `root` is not an eForms notice, or has no key (neither publication number
 * nor notice id) or no date to version it by. Every other unreadable value is null plus a `FieldError`.
 */
export function normalizeEformsNotice(root: XmlElement): NormalizeResult {
  if (!isEformsRoot(root.ns, root.name)) {
    throw new TedNoticeError(
      `not an eForms notice: root element is <${root.name}> in namespace "${root.ns}"`,
    );
  }
  const errors: FieldError[] = [];
  const extension = eformsExtension(root);
  const identity = readIdentity(root, extension, errors);

  const project = child(root, ...cac("ProcurementProject"));
  const procedure = readProject(project, "project", errors);
  const lots = readLots(root, errors);
  const cpvAll = [...new Set([...procedure.cpvs, ...lots.flatMap((lot) => lot.project.cpvs)])];
  const cpvMain =
    procedure.cpvs[0] ?? lots.find((lot) => lot.project.cpvs.length > 0)?.project.cpvs[0] ?? null;
  const framework = isFramework(project, lots, extension);
  const estimated = path(project, [cac("RequestedTenderTotal"), cbc("EstimatedOverallContractAmount")]);
  const estimatedValue = readAmount(estimated, "estimatedValue", errors);
  const organizations = organizationsById(extension);
  const sourceCodes = readSourceCodes(root, project);
  const awards = readEformsAwards(
    extension,
    {
      lots: new Map(lots.map((lot) => [lot.id, lot])),
      framework,
      cpvMain,
      organizations,
      fallbackAwardDate: readDate(
        path(root, [cac("TenderResult"), cbc("AwardDate")]),
        "tenderResult.awardDate",
        errors,
      ),
    },
    errors,
  );
  const noticeCode = sourceCodes.notice ?? null;
  const form =
    noticeCode !== null && Object.hasOwn(TED_FORM_TYPES, noticeCode) ? TED_FORM_TYPES[noticeCode] : null;

  const tender: NormalizedTender = {
    source: "ted",
    sourceRef: identity.sourceRef,
    feed: null,
    folderId: text(child(project, ...cbc("ID"))),
    upstreamUpdated: identity.upstreamUpdated,
    noticeType: mapCode(TED_NOTICE_TYPES, noticeCode, "noticeType", "the eForms notice-type list", errors),
    publicationDate: identity.publicationDate,
    title: collapse(pickLanguage(children(project, ...cbc("Name")))),
    description: pickLanguage(children(project, ...cbc("Description"))),
    cpvMain,
    cpvAll: cpvMain === null ? cpvAll : [cpvMain, ...cpvAll.filter((cpv) => cpv !== cpvMain)],
    contractType: tedContractType(
      mapCode(
        TED_CONTRACT_TYPES,
        sourceCodes.contract ?? null,
        "contractType",
        "the eForms contract-nature list",
        errors,
      ),
      sourceCodes.legal_basis ?? null,
    ),
    procedureType: mapCode(
      TED_PROCEDURE_TYPES,
      sourceCodes.procedure ?? null,
      "procedureType",
      "the eForms procurement-procedure-type list",
      errors,
    ),
    deadline: earliest(lots.map((lot) => lot.deadline)),
    estimatedValue,
    currency:
      estimatedValue === null ? null : parseCurrency(attr(estimated, "currencyID"), "currency", errors),
    nuts: placeOfPerformance(procedure, lots),
    url: identity.publicationNumber === null ? null : tedNoticeUrl(identity.publicationNumber),
    status: tedStatus(form ?? null, lotResults(extension, awards, errors)),
    sourceCodes,
    framework,
    durationMonths: procedure.durationMonths ?? longest(lots.map((lot) => lot.project.durationMonths)),
    buyer: readBuyer(root, organizations, errors),
    awards,
    crossRef: findPlacspReference(root),
  };
  return { tender, errors };
}

/** BT-02, BT-105, BT-23 and BT-01 as published; a key only when the notice has the element. */
function readSourceCodes(root: XmlElement, project: XmlElement | null): SourceCodes {
  return sourceCodesOf({
    notice: text(child(root, ...cbc("NoticeTypeCode"))),
    procedure: text(path(root, [cac("TenderingProcess"), cbc("ProcedureCode")])),
    contract: text(child(project, ...cbc("ProcurementTypeCode"))),
    legal_basis: text(child(root, ...cbc("RegulatoryDomain"))),
  });
}

/**
 * Each lot result's outcome (BT-142; when closed without winner, its reason BT-144) and whether a contract of
 * its lot is concluded. An unknown BT-142 was reported by the award reader; an unknown reason is reported here.
 */
function lotResults(
  extension: XmlElement | null,
  awards: readonly NormalizedAward[],
  errors: FieldError[],
): TedResult[] {
  const results = pathAll(extension, [efac("NoticeResult"), efac("LotResult")]);
  return results.map((result, i) => {
    const code = text(child(result, ...cbc("TenderResultCode")));
    const lot = text(path(result, [efac("TenderLot"), cbc("ID")]));
    let outcome =
      code !== null && Object.hasOwn(TED_RESULT_OUTCOMES, code) ? TED_RESULT_OUTCOMES[code] : null;
    if (outcome === "closed") {
      outcome = mapCode(
        TED_NON_AWARD_OUTCOMES,
        text(path(result, [efac("DecisionReason"), efbc("DecisionReasonCode")])),
        `lotResults[${i}].noAwardReason`,
        "the eForms non-award-justification list",
        errors,
      );
    }
    return {
      outcome: outcome ?? null,
      contractSigned: awards.some((award) => award.lot === lot && award.contractSigned),
    };
  });
}

interface Identity {
  sourceRef: string;
  publicationNumber: string | null;
  publicationDate: string | null;
  upstreamUpdated: string;
}

function readIdentity(root: XmlElement, extension: XmlElement | null, errors: FieldError[]): Identity {
  const publication = child(extension, ...efac("Publication"));
  const rawNumber = text(child(publication, ...efbc("NoticePublicationID")));
  const publicationNumber = normalizePublicationNumber(rawNumber);
  if (rawNumber !== null && publicationNumber === null) {
    fieldError(errors, "sourceRef", "not a TED publication number", rawNumber);
  }
  const sourceRef = publicationNumber ?? noticeKey(root);
  if (sourceRef === null) {
    throw new TedNoticeError(
      "eForms notice has neither a publication number (OPP-010) nor a notice id (BT-701)",
    );
  }

  const publicationDateEl = child(publication, ...efbc("PublicationDate"));
  const publicationDate = readDate(publicationDateEl, "publicationDate", errors);
  // The date was validated just above; a second error for the same value would only repeat it.
  const publishedAt =
    publicationDate === null
      ? null
      : readZonedInstant(
          publicationDateEl,
          null,
          { field: "", missingTime: "00:00:00", fallbackZone: "UTC" },
          [],
        );
  const upstreamUpdated =
    publishedAt ??
    readZonedInstant(
      child(root, ...cbc("IssueDate")),
      child(root, ...cbc("IssueTime")),
      { field: "issueDate", missingTime: "00:00:00", fallbackZone: "UTC" },
      errors,
    );
  if (upstreamUpdated === null) {
    throw new TedNoticeError(
      `notice ${sourceRef} has no valid publication date (OPP-012) or issue date (BT-05)`,
    );
  }
  return { sourceRef, publicationNumber, publicationDate, upstreamUpdated };
}

/** `{BT-701 notice UUID}-{BT-757 version}` (the version only when present), or null without a UUID. */
function noticeKey(root: XmlElement): string | null {
  const id = text(child(root, ...cbc("ID")));
  if (id === null) {
    return null;
  }
  const version = text(child(root, ...cbc("VersionID")));
  return version === null ? id : `${id}-${version}`;
}

function isFramework(
  project: XmlElement | null,
  lots: readonly EformsLot[],
  extension: XmlElement | null,
): boolean {
  const ceiling = pathAll(project, [
    cac("RequestedTenderTotal"),
    ...EXTENSION_STEPS,
    efbc("FrameworkMaximumAmount"),
  ]);
  return lots.some((lot) => lot.framework === true) || ceiling.length > 0 || resultSaysFramework(extension);
}

/** `ext:UBLExtensions/…/efext:EformsExtension` below a UBL element (BT-271 sits in one). */
const EXTENSION_STEPS = [
  ext("UBLExtensions"),
  ext("UBLExtension"),
  ext("ExtensionContent"),
  efext("EformsExtension"),
];

function placeOfPerformance(
  procedure: { nuts: string | null; country: string | null },
  lots: readonly EformsLot[],
): string | null {
  const nuts = procedure.nuts ?? lots.find((lot) => lot.project.nuts !== null)?.project.nuts ?? null;
  if (nuts !== null) {
    return nuts;
  }
  const country =
    procedure.country ?? lots.find((lot) => lot.project.country !== null)?.project.country ?? null;
  return country === null ? null : nuts0(country);
}

/** The earliest instant (`…Z` strings from `Date#toISOString` compare correctly as strings). */
function earliest(instants: readonly (string | null)[]): string | null {
  const known = instants.filter((instant): instant is string => instant !== null).sort();
  return known[0] ?? null;
}

function longest(durations: readonly (number | null)[]): number | null {
  const known = durations.filter((months): months is number => months !== null);
  return known.length === 0 ? null : Math.max(...known);
}
