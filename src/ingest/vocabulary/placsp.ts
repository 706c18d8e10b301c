import type { ContractType, NoticeType, ProcedureType, TenderStatus } from "../../domain/vocabulary.ts";
import type { VocabularyMap } from "./map-code.ts";

/**
 * PLACSP (CODICE) codes → the common vocabulary (docs/vocabulary.md holds the same tables with the reasons).
 * Every code of each list in placsp/codes.ts is a key here (vocabulary.test.ts checks it both ways).
 */

/** `NoticeTypeCode` (TenderingNoticeTypeCode-2.11). */
export const PLACSP_NOTICE_TYPES: VocabularyMap<NoticeType> = {
  DOC_PIN: "prior-information",
  DOC_PIN_RTL: "prior-information",
  DOC_CON: "market-consultation",
  DOC_CN: "contract-notice",
  // The tender documents and the descriptive document belong to the call for competition.
  DOC_CD: "contract-notice",
  DOC_DD: "contract-notice",
  DOC_ATPV: "direct-award-notice",
  DOC_CAN_PROV: "award-notice",
  DOC_CAN_DEF: "award-notice",
  DOC_CAN_ADJ: "award-notice",
  DOC_FORM: "contract-signed",
  DOC_FORM_ENC: "contract-signed",
  // An extension of an in-house commission changes a signed one.
  PRO_FORM_ENC: "modification",
  DOC_MOD: "modification",
  DOC_CCN: "completion",
  DESISTIMIENTO: "cancellation",
  RENUNCIA: "cancellation",
  ANUL_PIN: "cancellation",
  ANUL_PIN_RTL: "cancellation",
  ANUL_DOC_CON: "cancellation",
  ANUL_CN: "cancellation",
  ANUL_CD: "cancellation",
  ANUL_DD: "cancellation",
  ANUL_CAN_ADJ: "cancellation",
  ANUL_FORM: "cancellation",
  ANUL_FORM_ENC: "cancellation",
  ANUL_PRO_FORM_ENC: "cancellation",
  ANUL_DOC_MOD: "cancellation",
  ANUL_CCN: "cancellation",
  ANUL_DESISTIMIENTO: "cancellation",
  ANUL_RENUNCIA: "cancellation",
};

/** `ProcedureCode` (SyndicationTenderingProcessCode-2.07) → eForms BT-105, or the Spanish additions. */
export const PLACSP_PROCEDURE_TYPES: VocabularyMap<ProcedureType> = {
  "1": "open",
  "2": "restricted",
  "3": "neg-wo-call",
  "4": "neg-w-call",
  "5": "comp-dial",
  "6": "minor-contract",
  "7": "call-off",
  "8": "design-contest",
  "9": "simplified-open",
  "10": "innovation",
  "11": "call-off",
  "12": "call-off",
  // eForms' Spanish label of neg-w-call is "… / licitación con negociación".
  "13": "neg-w-call",
  "100": "internal-rules",
  "999": "other",
};

/** `ProcurementProject/TypeCode` (ContractCode-2.08). */
export const PLACSP_CONTRACT_TYPES: VocabularyMap<ContractType> = {
  "1": "supplies",
  "2": "services",
  "3": "works",
  "7": "other",
  "8": "other",
  // The pre-2017 management of public services, which LCSP 9/2017 replaced by the services concession.
  "21": "concession",
  "22": "concession",
  "31": "concession",
  "32": "concession",
  "40": "other",
  "50": "other",
};

/**
 * `ContractFolderStatusCode` (SyndicationContractFolderStatusCode-2.04). `RES` ("Resuelta") is left to the
 * results (`placspStatus`): it covers a signed contract as much as a void or withdrawn procedure.
 */
export const PLACSP_FOLDER_STATUSES: VocabularyMap<TenderStatus | "resolved"> = {
  PRE: "planned",
  PUB: "open",
  EV: "evaluation",
  ADJ: "awarded",
  RES: "resolved",
  ANUL: "cancelled",
};

/** What a `TenderResult/ResultCode` (TenderResultCode-2.09) says about the lot. */
export type ResultOutcome = "evaluation" | "awarded" | "signed" | "deserted" | "withdrawn";

export const PLACSP_RESULT_OUTCOMES: VocabularyMap<ResultOutcome> = {
  "1": "awarded",
  "2": "awarded",
  "3": "deserted",
  "4": "withdrawn",
  "5": "withdrawn",
  "6": "deserted",
  "7": "deserted",
  "8": "awarded",
  "9": "signed",
  "10": "evaluation",
  "11": "signed",
};

/**
 * The status of a folder from its status code and, for `RES`, its results (one outcome per result, with
 * whether the contract is known to be signed):
 * - any signed contract → `signed`; else any award → `awarded`; else a result still pending → `evaluation`;
 * - every result void: `cancelled` when any is a withdrawal (desistimiento, renuncia), `deserted` otherwise;
 * - `RES` without a readable result → null (concluded, but how is not published).
 */
export function placspStatus(
  folderStatus: TenderStatus | "resolved" | null,
  results: readonly { outcome: ResultOutcome | null; contractSigned: boolean }[],
): TenderStatus | null {
  if (folderStatus !== "resolved") {
    return folderStatus;
  }
  return outcomeStatus(results);
}

/** The status a set of results adds up to (rule above); shared by TED, whose results map to the same outcomes. */
export function outcomeStatus(
  results: readonly { outcome: ResultOutcome | null; contractSigned: boolean }[],
): TenderStatus | null {
  const known = results.filter((r) => r.outcome !== null);
  if (results.some((r) => r.contractSigned || r.outcome === "signed")) {
    return "signed";
  }
  if (known.some((r) => r.outcome === "awarded")) {
    return "awarded";
  }
  if (known.some((r) => r.outcome === "evaluation")) {
    return "evaluation";
  }
  if (known.length === 0 || known.length < results.length) {
    return null;
  }
  return known.some((r) => r.outcome === "withdrawn") ? "cancelled" : "deserted";
}
