/**
 * TED code lists: the eForms SDK genericode lists (`codelists/*.gc` of OP-TED/eForms-SDK, read at commit
 * 3242fbf7, SDK 1.16.0-SNAPSHOT; English labels as published) and, for legacy TED-XML R2.0.9, the form and
 * element values OP's own R2.0.9 → eForms converter maps (OP-TED/ted-xml-data-converter @ c4731a1,
 * `xslt/notice-type-mapping.xml` and `xslt/other-mappings.xml`). They say which codes TED defines;
 * ingest/vocabulary/ted.ts maps every one of them to the common vocabulary.
 */

export type CodeList = Readonly<Record<string, string>>;

/** BT-02 `cbc:NoticeTypeCode` (`notice-type`, version 20250924-0). */
export const NOTICE_TYPE_CODES: CodeList = {
  "brin-ecs": "European Company / European Cooperative Society notice",
  "brin-eeig": "European Economic Interest Grouping notice",
  "can-desg": "Design contest result notice",
  "can-modif": "Contract modification notice",
  "can-social": "Contract or concession award notice – light regime",
  "can-standard": "Contract or concession award notice – standard regime",
  "can-tran": "Contract award notice for public passenger transport services",
  "cn-desg": "Design contest notice",
  "cn-social": "Contract notice – light regime",
  "cn-standard": "Contract or concession notice – standard regime",
  compl: "Contract completion notice",
  "pin-buyer":
    "Notice of the publication of a prior information notice or a periodic information notice on a buyer profile",
  "pin-cfc-social":
    "Prior information notice or a periodic indicative notice used as a call for competition – light regime",
  "pin-cfc-standard":
    "Prior information notice or a periodic indicative notice used as a call for competition – standard regime",
  "pin-only": "Prior information notice or a periodic indicative notice used only for information",
  "pin-rtl":
    "Prior information notice or a periodic indicative notice used to shorten time limits for receipt of tenders",
  "pin-tran": "Prior information notice for public passenger transport services",
  pmc: "Pre-market consultation notice",
  "qu-sy": "Notice on the existence of a qualification system",
  subco: "Subcontracting notice",
  veat: "Voluntary ex-ante transparency notice",
};

/** The form type a notice type belongs to (`form-type`, version 20250924-0). */
export const FORM_TYPE_CODES: CodeList = {
  bri: "Business registration information",
  competition: "Competition",
  completion: "Completion",
  consultation: "Consultation",
  "cont-modif": "Contract modification",
  "dir-awa-pre": "Direct award preannouncement",
  planning: "Planning",
  result: "Result",
};

/** BT-105 `cbc:ProcedureCode` (`procurement-procedure-type`, version 20250924-0). */
export const PROCEDURE_TYPE_CODES: CodeList = {
  "comp-dial": "Competitive dialogue",
  "comp-tend": "Competitive tendering (article 5(3) of Regulation 1370/2007)",
  "exp-int-rail":
    "Request for expression of interest – only for rail (article 5(3b) of Regulation 1370/2007)",
  innovation: "Innovation partnership",
  "neg-w-call": "Negotiated with prior publication of a call for competition / competitive with negotiation",
  "neg-wo-call": "Negotiated without prior call for competition",
  open: "Open",
  "oth-mult": "Other multiple stage procedure",
  "oth-single": "Other single stage procedure",
  restricted: "Restricted",
};

/** BT-23 `cbc:ProcurementTypeCode` (`contract-nature`, version 20241211-0). */
export const CONTRACT_NATURE_CODES: CodeList = {
  services: "Services",
  supplies: "Supplies",
  works: "Works",
};

/** BT-142 `cbc:TenderResultCode` (`winner-selection-status`, version 20250924-0). */
export const WINNER_SELECTION_STATUS_CODES: CodeList = {
  "clos-nw": "No winner was chosen and the competition is closed.",
  "open-nw": "The winner was not yet chosen, but the competition is still ongoing.",
  "selec-w": "At least one winner was chosen.",
};

/** BT-144 `efbc:DecisionReasonCode` (`non-award-justification`, version 20240612-0). */
export const NON_AWARD_JUSTIFICATION_CODES: CodeList = {
  "all-rej": "All tenders, requests to participate or projects were withdrawn or found inadmissible",
  "chan-need": "Decision of the buyer, because of a change in needs",
  "ins-fund": "Decision of the buyer, because of insufficient funds",
  "no-rece": "No tenders, requests to participate or projects were received",
  "no-signed": "The highest ranked tenderer(s) refused to sign the contract",
  "one-admis": "Only one admissible tender, request to participate or project was received",
  other: "Other",
  "rev-body": "Decision of a review body or another judicial body",
  "rev-buyer": "Decision of the buyer following a tenderer's request to review the award",
  "tch-pr-error":
    "Decision of the buyer, not following a tenderer's request to review the award, because of technical or procedural errors",
};

/** R2.0.9 forms this service reads, as OP's converter names them (`notice-type-mapping.xml`). */
export const R209_FORM_CODES: CodeList = {
  F02_2014: "Contract notice",
  F03_2014: "Contract award notice",
};

/** R2.0.9 `PROCEDURE/PT_*` elements (`other-mappings.xml`, procedure-types: the TED labels). */
export const R209_PROCEDURE_CODES: CodeList = {
  PT_OPEN: "Open procedure",
  PT_RESTRICTED: "Restricted procedure",
  PT_COMPETITIVE_NEGOTIATION: "Competitive procedure with negotiation",
  PT_COMPETITIVE_DIALOGUE: "Competitive dialogue",
  PT_INNOVATION_PARTNERSHIP: "Innovation partnership",
  PT_INVOLVING_NEGOTIATION: "Procedure involving negotiation",
  PT_NEGOTIATED_WITH_PRIOR_CALL: "Negotiated procedure with prior call for competition",
  PT_AWARD_CONTRACT_WITHOUT_CALL:
    "Award of a contract/concession without prior publication of a call for competition/concession notice",
  PT_AWARD_CONTRACT_WITH_PRIOR_PUBLICATION: "Award procedure with prior publication of a concession notice",
  PT_AWARD_CONTRACT_WITHOUT_PUBLICATION:
    "Award of a concession without prior publication of a concession notice",
  PT_NEGOTIATED_WITHOUT_PUBLICATION:
    "Negotiated procedure without publication of a contract notice / Negotiated procedure without prior call for competition",
};

/** R2.0.9 `OBJECT_CONTRACT/TYPE_CONTRACT/@CTYPE` (`other-mappings.xml`, contract-nature-types). */
export const R209_CONTRACT_CODES: CodeList = {
  SERVICES: "Services",
  SUPPLIES: "Supplies",
  WORKS: "Works",
};

/** R2.0.9 `AWARD_CONTRACT/NO_AWARDED_CONTRACT` children (F03_2014): why a lot was not awarded. */
export const R209_NON_AWARD_CODES: CodeList = {
  PROCUREMENT_UNSUCCESSFUL: "No tenders or requests to participate were received or all were rejected",
  PROCUREMENT_DISCONTINUED: "Other reasons (discontinuation of procedure)",
};
