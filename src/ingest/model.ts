/**
 * The normalized shape every source (PLACSP CODICE, TED eForms, TED legacy XML) is mapped to before it is
 * written. Parsers and normalizers produce these plain objects; `ingest/apply-batch.ts` is the only writer. Unknown is
 * `null`, never 0 or "": a value that is absent or does not parse stays null (and, when it was present but
 * unparseable, the normalizer also reports a `FieldError`).
 *
 * Dates are calendar dates `YYYY-MM-DD`; instants are ISO 8601 strings with a `Z` or an offset. Amounts are
 * numbers in the notice's currency.
 */

import type {
  ContractType,
  NoticeType,
  ProcedureType,
  SourceCodes,
  StartDateKind,
  TenderStatus,
} from "../domain/vocabulary.ts";

export type SourceName = "placsp" | "ted";

/**
 * The version of the mapping from source codes to stored values, written with every tender
 * (`tenders.normalization_version`). 1 was the code before migration 0023 (source codes in the coded columns);
 * 2 is the common vocabulary. A stored row of an older version is re-normalized when its upstream version is
 * read again; bump this with a migration whenever stored values would change for the same upstream notice.
 */
export const NORMALIZATION_VERSION = 2;

/** A party as published: a buyer, a winner, or a member of a joint venture. */
export interface NormalizedParty {
  /** Name as published, trimmed and with internal whitespace collapsed. */
  name: string;
  /** Normalized Spanish tax id (NIF/NIE/CIF) when the published id validates; otherwise null. */
  nif: string | null;
  /** The identifier as published (any scheme), kept even when it does not validate. */
  rawId: string | null;
  /** The scheme of `rawId` as published (`NIF`, `DIR3`, `ID_PLATAFORMA`, `VAT`, …), or null. */
  idScheme: string | null;
  /** ISO 3166-1 alpha-2 country code, or null. */
  country: string | null;
}

export interface NormalizedBuyer extends NormalizedParty {
  /** DIR3 codes; a buyer can carry several. */
  dir3: string[];
  /** PLACSP platform id (`ID_PLATAFORMA`, or `ID_OC_PLAT` in the aggregated feed). */
  platformId: string | null;
  nuts: string | null;
  /** Contracting party type code as published. */
  orgType: string | null;
}

export interface NormalizedWinner extends NormalizedParty {
  /** A UTE / consortium / joint venture: kept as a party of its own. */
  isJointVenture: boolean;
  /** Members of the joint venture when the notice names them; empty otherwise. */
  members: NormalizedParty[];
}

export interface NormalizedAward {
  /** Lot id as published (`"1"`, `"LOT-0001"`), null when the procedure has no lots. */
  lot: string | null;
  /** Result code as published (PLACSP TenderResultCode: 8 adjudicado, 9 formalizado, 3 desierto, …). */
  resultCode: string | null;
  awardDate: string | null;
  /** Null for void results (desierto, no valid bids, desistimiento, renuncia). */
  winner: NormalizedWinner | null;
  /** Tax-exclusive awarded value; null for void results. */
  value: number | null;
  /** Tax-inclusive (payable) value. */
  valuePayable: number | null;
  currency: string | null;
  biddersCount: number | null;
  framework: boolean;
  /** True when `value` is a framework maximum (a ceiling, never spend). */
  valueIsCeiling: boolean;
  durationMonths: number | null;
  /** The contract's start: the actual one when the notice publishes it, else the planned one (`startDateKind`). */
  startDate: string | null;
  /** `actual` (PLACSP `TenderResult/StartDate`) or `planned` (`PlannedPeriod/StartDate`); null without a start. */
  startDateKind: StartDateKind | null;
  endDate: string | null;
  /**
   * The extensions, renewals and options the notice announces for the contract, as published (free text;
   * when a source has several statements they are joined by `joinTexts`, one per line). Null when none is
   * announced, and for void results.
   */
  extensionText: string | null;
  /**
   * The announced extension period in months, only from a structured period (PLACSP `OptionValidityPeriod`,
   * eForms `Renewal/Period` `DurationMeasure`); never read out of the free text.
   */
  extensionMonths: number | null;
  /** The latest end date including extensions, only when the notice publishes it as a structured date. */
  extensionEndDate: string | null;
  /** The contract is signed (PLACSP result 9 "formalizado", or a contract start date is known). */
  contractSigned: boolean;
  /** The lot's main CPV, else the tender's. */
  cpv: string | null;
}

export interface NormalizedTender {
  source: SourceName;
  /** The source's stable key: PLACSP entry id URI; TED normalized publication number. */
  sourceRef: string;
  /** PLACSP feed (`643`, `1044`, `1143`) or null. */
  feed: string | null;
  /** The buyer's own file number (PLACSP ContractFolderID); not unique. */
  folderId: string | null;
  /** Upstream version time (PLACSP `entry/updated`). */
  upstreamUpdated: string;
  /** Common vocabulary (domain/vocabulary.ts); the published codes are in `sourceCodes`. */
  noticeType: NoticeType | null;
  publicationDate: string | null;
  title: string | null;
  description: string | null;
  cpvMain: string | null;
  /** Every CPV of the notice, folder and lots, deduplicated, main first. */
  cpvAll: string[];
  contractType: ContractType | null;
  procedureType: ProcedureType | null;
  /** Submission deadline as an instant. */
  deadline: string | null;
  estimatedValue: number | null;
  currency: string | null;
  nuts: string | null;
  url: string | null;
  /** Where the procedure stands (PLACSP: folder status and results; TED: the notice's form and results). */
  status: TenderStatus | null;
  /** The codes the common fields were mapped from, as published (kept even when unknown). */
  sourceCodes: SourceCodes;
  framework: boolean;
  durationMonths: number | null;
  buyer: NormalizedBuyer | null;
  awards: NormalizedAward[];
  /** Reference to the same procedure on the other source when the notice gives one (PLACSP UUID[@schemeName=TED]). */
  crossRef: string | null;
}

/** An ATOM `at:deleted-entry`: the entry `sourceRef` was closed/cancelled at `deletedAt`. */
export interface Tombstone {
  source: SourceName;
  sourceRef: string;
  deletedAt: string;
  /** `at:comment/@type` as published (`ANULADA`, `CERRADA`, …), or null. */
  reason: string | null;
}

/** A value that was present but could not be read; the field is null and this is recorded. */
export interface FieldError {
  field: string;
  reason: string;
}

export interface NormalizeResult {
  tender: NormalizedTender;
  errors: FieldError[];
}
