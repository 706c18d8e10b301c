import type { ContractType, NoticeType, ProcedureType, TenderStatus } from "../../domain/vocabulary.ts";
import type { VocabularyMap } from "./map-code.ts";
import { outcomeStatus, type ResultOutcome } from "./placsp.ts";

/**
 * TED codes → the common vocabulary (docs/vocabulary.md). eForms codes come from the eForms SDK code lists
 * (`notice-type`, `form-type`, `procurement-procedure-type`, `contract-nature`, `legal-basis`,
 * `winner-selection-status`, `non-award-justification`); R2.0.9 ones are the `F0x_2014` forms, the
 * `PROCEDURE/PT_*` elements and `TYPE_CONTRACT/@CTYPE`, read through OP's own R2.0.9 → eForms mapping
 * (ted-xml-data-converter `notice-type-mapping.xml`, `other-mappings.xml`).
 */

/** eForms form type (`form-type`) of each notice type (BT-02; `notice-type` and its per-form subsets). */
export const TED_FORM_TYPES: Readonly<Record<string, string>> = {
  "pin-only": "planning",
  "pin-buyer": "planning",
  "pin-rtl": "planning",
  "pin-tran": "planning",
  pmc: "consultation",
  "cn-standard": "competition",
  "cn-social": "competition",
  "cn-desg": "competition",
  "pin-cfc-standard": "competition",
  "pin-cfc-social": "competition",
  "qu-sy": "competition",
  subco: "competition",
  veat: "dir-awa-pre",
  "can-standard": "result",
  "can-social": "result",
  "can-desg": "result",
  "can-tran": "result",
  "can-modif": "cont-modif",
  compl: "completion",
  "brin-ecs": "bri",
  "brin-eeig": "bri",
};

/** Notice type (BT-02), by its form type: a PIN used as a call for competition is a call for competition. */
export const TED_NOTICE_TYPES: VocabularyMap<NoticeType> = Object.fromEntries(
  Object.entries(TED_FORM_TYPES).map(([code, form]) => [code, noticeTypeOfForm(form)]),
);

function noticeTypeOfForm(form: string): NoticeType | null {
  switch (form) {
    case "planning":
      return "prior-information";
    case "consultation":
      return "market-consultation";
    case "competition":
      return "contract-notice";
    case "dir-awa-pre":
      return "direct-award-notice";
    case "result":
      return "award-notice";
    case "cont-modif":
      return "modification";
    case "completion":
      return "completion";
    default:
      // `bri`: business registration notices (European companies, EEIGs) are not procurement.
      return null;
  }
}

/** R2.0.9 forms read (r209-form.ts) → their eForms notice type (OP: F02 → subtype 16, F03 → subtype 29). */
export const R209_FORM_NOTICE_TYPES: Readonly<Record<string, string>> = {
  F02_2014: "cn-standard",
  F03_2014: "can-standard",
};

/** `procurement-procedure-type` (BT-105): the common vocabulary is these codes. */
export const TED_PROCEDURE_TYPES: VocabularyMap<ProcedureType> = {
  open: "open",
  restricted: "restricted",
  "neg-w-call": "neg-w-call",
  "neg-wo-call": "neg-wo-call",
  "comp-dial": "comp-dial",
  innovation: "innovation",
  "oth-single": "oth-single",
  "oth-mult": "oth-mult",
  "comp-tend": "comp-tend",
  "exp-int-rail": "exp-int-rail",
};

/**
 * R2.0.9 `PROCEDURE/PT_*` element → BT-105, as OP's converter maps them. `PT_INVOLVING_NEGOTIATION` (light
 * regime forms) has no eForms code there ("UNKNOWN") and is not a key: it is reported, not guessed.
 */
export const R209_PROCEDURE_TYPES: VocabularyMap<ProcedureType> = {
  PT_OPEN: "open",
  PT_RESTRICTED: "restricted",
  PT_COMPETITIVE_NEGOTIATION: "neg-w-call",
  PT_NEGOTIATED_WITH_PRIOR_CALL: "neg-w-call",
  PT_AWARD_CONTRACT_WITH_PRIOR_PUBLICATION: "neg-w-call",
  PT_COMPETITIVE_DIALOGUE: "comp-dial",
  PT_INNOVATION_PARTNERSHIP: "innovation",
  PT_AWARD_CONTRACT_WITHOUT_CALL: "neg-wo-call",
  PT_AWARD_CONTRACT_WITHOUT_PUBLICATION: "neg-wo-call",
  PT_NEGOTIATED_WITHOUT_PUBLICATION: "neg-wo-call",
};

/** `contract-nature` (BT-23). */
export const TED_CONTRACT_TYPES: VocabularyMap<ContractType> = {
  works: "works",
  supplies: "supplies",
  services: "services",
};

/** R2.0.9 `TYPE_CONTRACT/@CTYPE` → BT-23. */
export const R209_CONTRACT_TYPES: VocabularyMap<ContractType> = {
  WORKS: "works",
  SUPPLIES: "supplies",
  SERVICES: "services",
};

/** `legal-basis` (BT-01) of the concessions directive: a notice under it is a concession, whatever its nature. */
export const CONCESSION_LEGAL_BASIS = "32014L0023";

/** The contract type of a TED notice: `concession` under Directive 2014/23/EU, else the contract nature. */
export function tedContractType(nature: ContractType | null, legalBasis: string | null): ContractType | null {
  return legalBasis === CONCESSION_LEGAL_BASIS ? "concession" : nature;
}

/** `winner-selection-status` (BT-142) of a lot result. */
export const TED_RESULT_OUTCOMES: Readonly<Record<string, ResultOutcome | "closed">> = {
  "selec-w": "awarded",
  "open-nw": "evaluation",
  "clos-nw": "closed",
};

/**
 * `non-award-justification` (BT-144) of a result closed without winner: no (valid) tender is a deserted
 * lot; a decision of the buyer or of a review body withdraws it (PLACSP's desistimiento). `other` says
 * neither: no outcome.
 */
export const TED_NON_AWARD_OUTCOMES: VocabularyMap<ResultOutcome> = {
  "no-rece": "deserted",
  "all-rej": "deserted",
  "one-admis": "deserted",
  "no-signed": "deserted",
  "chan-need": "withdrawn",
  "ins-fund": "withdrawn",
  "rev-body": "withdrawn",
  "rev-buyer": "withdrawn",
  "tch-pr-error": "withdrawn",
  other: null,
};

/** R2.0.9 `NO_AWARDED_CONTRACT` children: the two reasons F03 knows. */
export const R209_NON_AWARD_OUTCOMES: VocabularyMap<ResultOutcome> = {
  PROCUREMENT_UNSUCCESSFUL: "deserted",
  PROCUREMENT_DISCONTINUED: "withdrawn",
};

/** One lot result of a TED notice, as far as the status needs it. */
export interface TedResult {
  /** The lot's outcome; null when its code or its no-winner reason is not one of the lists above. */
  outcome: ResultOutcome | null;
  contractSigned: boolean;
}

/**
 * The status a TED notice states. Planning and consultation notices: `planned`; calls for competition:
 * `open`; results and direct-award preannouncements: what their lot results add up to (placsp.ts
 * `outcomeStatus`: signed, awarded, evaluation, or when every lot closed without winner, cancelled or
 * deserted); a modification or completion notice concerns a signed contract. Null for anything else.
 */
export function tedStatus(form: string | null, results: readonly TedResult[]): TenderStatus | null {
  switch (form) {
    case "planning":
    case "consultation":
      return "planned";
    case "competition":
      return "open";
    case "result":
    case "dir-awa-pre":
      return outcomeStatus(results);
    case "cont-modif":
    case "completion":
      return "signed";
    default:
      return null;
  }
}
