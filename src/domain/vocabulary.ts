/**
 * The one vocabulary of the coded tender fields, whatever the source (docs/vocabulary.md). PLACSP (CODICE code
 * lists) and TED (eForms code lists, and the R2.0.9 forms) codes are mapped to these values when a notice is
 * read (ingest/vocabulary/); the codes as published stay in the tender's `source_codes`. Where the EU eForms
 * lists have a code, it is the value used here; the Spanish additions are the procedures eForms has no code for.
 *
 * The SQL of migration 0023 holds the same value lists as CHECK constraints.
 */

/** Notice type: which stage of the procedure the newest notice of the tender announces. */
export const NOTICE_TYPES = [
  "prior-information",
  "market-consultation",
  "contract-notice",
  "direct-award-notice",
  "award-notice",
  "contract-signed",
  "modification",
  "completion",
  "cancellation",
] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/**
 * Procedure type: the eForms `procurement-procedure-type` codes (BT-105), then what Spanish law has that
 * eForms lacks.
 */
export const PROCEDURE_TYPES = [
  "open",
  "restricted",
  "neg-w-call",
  "neg-wo-call",
  "comp-dial",
  "innovation",
  "oth-single",
  "oth-mult",
  "comp-tend",
  "exp-int-rail",
  "simplified-open",
  "minor-contract",
  "call-off",
  "design-contest",
  "internal-rules",
  "other",
] as const;
export type ProcedureType = (typeof PROCEDURE_TYPES)[number];

/** Contract type: the eForms `contract-nature` codes (BT-23), plus concessions and the Spanish special types. */
export const CONTRACT_TYPES = ["works", "supplies", "services", "concession", "other"] as const;
export type ContractType = (typeof CONTRACT_TYPES)[number];

/** Where the procedure stands, as far as its newest notice tells. */
export const TENDER_STATUSES = [
  "planned",
  "open",
  "evaluation",
  "awarded",
  "signed",
  "cancelled",
  "deserted",
] as const;
export type TenderStatus = (typeof TENDER_STATUSES)[number];

/** Whether an award's `start_date` is the contract's actual start or the start the notice plans. */
export const START_DATE_KINDS = ["actual", "planned"] as const;
export type StartDateKind = (typeof START_DATE_KINDS)[number];

/**
 * The codes behind the common fields, exactly as the notice publishes them, each only when the notice has it:
 * `notice`, `procedure`, `contract` and `status` (PLACSP `NoticeTypeCode`, `ProcedureCode`, `TypeCode`,
 * `ContractFolderStatusCode`; TED BT-02, BT-105, BT-23 or the R2.0.9 form, `PT_*` element and `CTYPE`) and
 * `legal_basis` (TED BT-01 / R2.0.9 `LEGAL_BASIS`, which tells a concession apart).
 */
export type SourceCodes = {
  notice?: string;
  procedure?: string;
  contract?: string;
  status?: string;
  legal_basis?: string;
};

export const SOURCE_CODE_KEYS = ["notice", "procedure", "contract", "status", "legal_basis"] as const;

/** The published codes a reader found, keeping a key only where the notice has the element. */
export function sourceCodesOf(found: { [K in keyof SourceCodes]?: string | null }): SourceCodes {
  const codes: SourceCodes = {};
  for (const key of SOURCE_CODE_KEYS) {
    const value = found[key];
    if (value !== null && value !== undefined) {
      codes[key] = value;
    }
  }
  return codes;
}

/**
 * The status a reader is told: a stored `open` whose submission deadline has passed reads `evaluation`
 * (submission closed, no result known yet). A TED contract notice is never re-published, and a PLACSP folder
 * may not have been re-published since its deadline, so the stored value alone would keep them open forever.
 */
export function effectiveStatus(
  status: TenderStatus | null,
  deadline: Date | null,
  now: Date,
): TenderStatus | null {
  if (status === "open" && deadline !== null && deadline.getTime() < now.getTime()) {
    return "evaluation";
  }
  return status;
}
