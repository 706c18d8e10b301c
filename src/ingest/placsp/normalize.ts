import { type SourceCodes, sourceCodesOf } from "../../domain/vocabulary.ts";
import { parseIsoInstant } from "../../lib/dates.ts";
import type { FieldError, NormalizedTender, NormalizeResult } from "../model.ts";
import { mapCode } from "../vocabulary/map-code.ts";
import {
  PLACSP_CONTRACT_TYPES,
  PLACSP_FOLDER_STATUSES,
  PLACSP_NOTICE_TYPES,
  PLACSP_PROCEDURE_TYPES,
  PLACSP_RESULT_OUTCOMES,
  placspStatus,
} from "../vocabulary/placsp.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, text } from "../xml/element.ts";
import { readAwards } from "./awards.ts";
import { CONTRACTING_SYSTEM_CODES, FRAMEWORK_SYSTEM_CODES } from "./codes.ts";
import { readDeadline } from "./deadline.ts";
import { atom, cac, cacExt, cbc, cbcExt, NS } from "./namespaces.ts";
import { currentNoticeType, firstPublicationDate, readNoticeIssues } from "./notices.ts";
import { readBuyer } from "./parties.ts";
import type { ProjectInfo } from "./project.ts";
import { readProject } from "./project.ts";
import { collapsedText, readAmount, readCode, readCurrency, readNuts } from "./values.ts";

/**
 * Maps one PLACSP `atom:entry` (a full snapshot of one contract folder) to a `NormalizedTender` with its
 * awards, following the field map in research note placsp.md §5. Pure: no I/O, no clock.
 *
 * Conventions (where the note leaves a choice):
 * - Instants (`upstreamUpdated`, `deadline`) are UTC `…Z` strings with milliseconds, so versions compare as
 *   strings. The published offset is not kept; the instant is.
 * - Coded fields (`noticeType`, `procedureType`, `contractType`, `status`) are in the common vocabulary
 *   (ingest/vocabulary/placsp.ts); the codes as published are kept in `sourceCodes`, an unknown one with a
 *   `FieldError` and a null common value.
 * - `noticeType`: the type of the most recently issued `ValidNoticeInfo` (see notices.ts).
 * - `status`: the folder's `ContractFolderStatusCode`; for `RES`, what its results add up to (`placspStatus`).
 * - `publicationDate`: OpenPLACSP's "Primera publicación" (see notices.ts).
 * - `cpvMain`: the first CPV of the folder, else of the first lot that has one; `cpvAll` is folder CPVs then
 *   lot CPVs, deduplicated, so `cpvAll[0] === cpvMain`.
 * - `title`: the folder name (else `entry/title`) with whitespace runs collapsed. `description` is
 *   `ProcurementProject/cbc:Description` when present (it never is in practice); never the generated summary.
 * - `nuts`: the folder's `RealizedLocation/CountrySubentityCode`, else its address country code (NUTS 0).
 * - `estimatedValue` is only `EstimatedOverallContractAmount`: the budget is a different figure.
 * - `durationMonths`: see project.ts (days × 12 / 365, rounded to 2 decimals).
 * - `deadline`: see deadline.ts (Europe/Madrid wall time; a date without a time means 23:59:59).
 *
 * Throws `PlacspEntryError` only when the entry has no usable `id` or `updated`: without them a record
 * can be neither keyed nor versioned. Every other unreadable value becomes null plus a `FieldError`.
 */

export class PlacspEntryError extends Error {
  override readonly name = "PlacspEntryError";
}

export interface NormalizeOptions {
  /** The PLACSP feed the entry came from (`643`, `1044`, `1143`), or null if unknown. */
  feed: string | null;
}

export function normalizePlacspEntry(entry: XmlElement, options: NormalizeOptions): NormalizeResult {
  if (entry.ns !== NS.atom || entry.name !== "entry") {
    throw new PlacspEntryError(`expected an ATOM <entry>, got <${entry.name}> in namespace "${entry.ns}"`);
  }
  const sourceRef = text(child(entry, ...atom("id")));
  if (sourceRef === null) {
    throw new PlacspEntryError("entry has no <id>");
  }
  const updated = text(child(entry, ...atom("updated")));
  const upstreamUpdated = updated === null ? null : parseIsoInstant(updated);
  if (upstreamUpdated === null) {
    throw new PlacspEntryError(`entry ${sourceRef} has no valid <updated>: ${JSON.stringify(updated)}`);
  }

  const errors: FieldError[] = [];
  const cfs = child(entry, ...cacExt("ContractFolderStatus"));
  const project = child(cfs, ...cac("ProcurementProject"));
  const folder = readProject(project, "project", errors);
  const lots = readLots(cfs, errors);
  const cpvAll = [...new Set([...folder.cpvs, ...lots.all.flatMap((lot) => lot.cpvs)])];
  const cpvMain = cpvAll[0] ?? null;

  const tenderingProcess = child(cfs, ...cac("TenderingProcess"));
  const system = readCode(
    child(tenderingProcess, ...cbc("ContractingSystemCode")),
    CONTRACTING_SYSTEM_CODES,
    "contractingSystem",
    errors,
  );
  const framework = system !== null && FRAMEWORK_SYSTEM_CODES.has(system);

  const budget = child(project, ...cac("BudgetAmount"));
  const estimated = child(budget, ...cbc("EstimatedOverallContractAmount"));
  const currencySource =
    [estimated, child(budget, ...cbc("TaxExclusiveAmount")), child(budget, ...cbc("TotalAmount"))].find(
      (el) => attr(el, "currencyID") !== null,
    ) ?? null;
  const notices = readNoticeIssues(cfs, errors);
  const sourceCodes = readSourceCodes(cfs, project, tenderingProcess, currentNoticeType(notices));
  const awards = readAwards(cfs, { framework, cpvMain, folder, lots: lots.byId }, errors);
  const folderStatus = mapCode(
    PLACSP_FOLDER_STATUSES,
    sourceCodes.status ?? null,
    "status",
    LISTS.status,
    errors,
  );

  const tender: NormalizedTender = {
    source: "placsp",
    sourceRef,
    feed: options.feed,
    folderId: text(child(cfs, ...cbc("ContractFolderID"))),
    upstreamUpdated,
    noticeType: mapCode(PLACSP_NOTICE_TYPES, sourceCodes.notice ?? null, "noticeType", LISTS.notice, errors),
    publicationDate: firstPublicationDate(notices),
    title: collapsedText(child(project, ...cbc("Name"))) ?? collapsedText(child(entry, ...atom("title"))),
    description: text(child(project, ...cbc("Description"))),
    cpvMain,
    cpvAll,
    contractType: mapCode(
      PLACSP_CONTRACT_TYPES,
      sourceCodes.contract ?? null,
      "contractType",
      LISTS.contract,
      errors,
    ),
    procedureType: mapCode(
      PLACSP_PROCEDURE_TYPES,
      sourceCodes.procedure ?? null,
      "procedureType",
      LISTS.procedure,
      errors,
    ),
    deadline: readDeadline(tenderingProcess, errors),
    estimatedValue: readAmount(estimated, "estimatedValue", errors),
    currency: readCurrency(currencySource, "currency", errors),
    nuts:
      folder.nuts ??
      readNuts(
        path(project, [cac("RealizedLocation"), cac("Address"), cac("Country"), cbc("IdentificationCode")]),
        "nuts",
        errors,
      ),
    url: entryUrl(entry),
    status: placspStatus(
      folderStatus,
      awards.map((award) => ({
        outcome: award.resultCode === null ? null : (PLACSP_RESULT_OUTCOMES[award.resultCode] ?? null),
        contractSigned: award.contractSigned,
      })),
    ),
    sourceCodes,
    framework,
    durationMonths: folder.durationMonths,
    buyer: readBuyer(cfs, errors),
    awards,
    crossRef: text(children(cfs, ...cbc("UUID")).find((uuid) => attr(uuid, "schemeName") === "TED")),
  };
  return { tender, errors };
}

/** The CODICE lists the coded fields come from, named in field errors. */
const LISTS = {
  notice: "the PLACSP TenderingNoticeTypeCode list",
  procedure: "the PLACSP SyndicationTenderingProcessCode list",
  contract: "the PLACSP ContractCode list",
  status: "the PLACSP SyndicationContractFolderStatusCode list",
} as const;

/** The published codes behind the common fields; a key only when the folder has the element. */
function readSourceCodes(
  cfs: XmlElement | null,
  project: XmlElement | null,
  tenderingProcess: XmlElement | null,
  notice: string | null,
): SourceCodes {
  return sourceCodesOf({
    notice,
    procedure: text(child(tenderingProcess, ...cbc("ProcedureCode"))),
    contract: text(child(project, ...cbc("TypeCode"))),
    status: text(child(cfs, ...cbcExt("ContractFolderStatusCode"))),
  });
}

/**
 * Every lot's project in document order (for CPVs), and lots by `cbc:ID` (schemeName ID_LOTE) for awards
 * to find theirs; the first lot with a given id wins.
 */
function readLots(
  cfs: XmlElement | null,
  errors: FieldError[],
): { all: ProjectInfo[]; byId: Map<string, ProjectInfo> } {
  const all: ProjectInfo[] = [];
  const byId = new Map<string, ProjectInfo>();
  for (const [i, lot] of children(cfs, ...cac("ProcurementProjectLot")).entries()) {
    const id = text(child(lot, ...cbc("ID")));
    const info = readProject(child(lot, ...cac("ProcurementProject")), `lots[${id ?? i}]`, errors);
    all.push(info);
    if (id !== null && !byId.has(id)) {
      byId.set(id, info);
    }
  }
  return { all, byId };
}

/** The entry's web page: the `alternate` link (ATOM's default when `rel` is absent). */
function entryUrl(entry: XmlElement): string | null {
  const link = children(entry, ...atom("link")).find((l) => (attr(l, "rel") ?? "alternate") === "alternate");
  return attr(link, "href");
}
