import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, pathAll, text } from "../xml/element.ts";
import { DEFAULT_LOCAL_TIME_ZONE } from "./countries.ts";
import { cac, cbc } from "./namespaces.ts";
import {
  END_OF_DAY,
  fieldError,
  parseCpv,
  parseNuts,
  readCountryAlpha3,
  readDate,
  readZonedInstant,
} from "./values.ts";

/**
 * The `cac:ProcurementProject` block shared by the procedure and each lot, and the lots themselves
 * (`cac:ProcurementProjectLot`, ted.md §5.1).
 */

export interface EformsProject {
  /** Main CPV (BT-262) first, then additional ones (BT-263), deduplicated. */
  cpvs: string[];
  /** Place of performance: the first `RealizedLocation/Address/CountrySubentityCode` (BT-5071). */
  nuts: string | null;
  /** Place of performance country (BT-5141), ISO alpha-2. */
  country: string | null;
  /** BT-36 in months; null for `UNLIMITED`/`UNKNOWN` (BT-538) or when absent. */
  durationMonths: number | null;
  /** BT-536 / BT-537 as calendar dates. */
  startDate: string | null;
  endDate: string | null;
}

export interface EformsLot {
  /** `cbc:ID` as published (`LOT-0001`; a single-lot procedure still has one, sometimes `LOT-0000`). */
  id: string;
  project: EformsProject;
  /** BT-765: true for `fa-*`, false for `none`, null when not stated. */
  framework: boolean | null;
  /** Submission deadline as an instant (see `readLotDeadline`). */
  deadline: string | null;
}

/**
 * Months per BT-36 `@unitCode` (eForms `duration-unit` list). Days use a 365-day year, as for PLACSP, so
 * "365 DAY" is exactly 12 months.
 */
const MONTHS_PER_UNIT: Readonly<Record<string, number>> = {
  DAY: 12 / 365,
  WEEK: (7 * 12) / 365,
  MONTH: 1,
  YEAR: 12,
};
const DURATION_RE = /^\d+(?:\.\d+)?$/;
const FRAMEWORK_CODES: ReadonlySet<string> = new Set(["fa-wo-rc", "fa-w-rc", "fa-mix"]);

export function readProject(project: XmlElement | null, field: string, errors: FieldError[]): EformsProject {
  const cpvs: string[] = [];
  const codes = [
    ...pathAll(project, [cac("MainCommodityClassification"), cbc("ItemClassificationCode")]),
    ...pathAll(project, [cac("AdditionalCommodityClassification"), cbc("ItemClassificationCode")]),
  ];
  for (const [i, code] of codes.entries()) {
    const cpv = parseCpv(text(code), `${field}.cpv[${i}]`, errors);
    if (cpv !== null && !cpvs.includes(cpv)) {
      cpvs.push(cpv);
    }
  }
  const addresses = pathAll(project, [cac("RealizedLocation"), cac("Address")]);
  const subentity = addresses.map((a) => child(a, ...cbc("CountrySubentityCode"))).find((el) => text(el));
  const country = addresses
    .map((a) => path(a, [cac("Country"), cbc("IdentificationCode")]))
    .find((el) => text(el));
  const period = child(project, ...cac("PlannedPeriod"));
  return {
    cpvs,
    nuts: parseNuts(text(subentity), `${field}.nuts`, errors),
    country: readCountryAlpha3(country ?? null, `${field}.country`, errors),
    durationMonths: readDurationMonths(child(period, ...cbc("DurationMeasure")), `${field}.duration`, errors),
    startDate: readDate(child(period, ...cbc("StartDate")), `${field}.startDate`, errors),
    endDate: readDate(child(period, ...cbc("EndDate")), `${field}.endDate`, errors),
  };
}

/**
 * Every lot in document order. Groups of lots (`GLO-…`, `@schemeName="LotsGroup"`) are not lots and are
 * skipped; PIN "parts" (`PAR-…`) are read like lots.
 */
export function readLots(root: XmlElement, errors: FieldError[]): EformsLot[] {
  const lots: EformsLot[] = [];
  for (const [i, lot] of children(root, ...cac("ProcurementProjectLot")).entries()) {
    const idEl = child(lot, ...cbc("ID"));
    const id = text(idEl);
    if (attr(idEl, "schemeName") === "LotsGroup" || id?.startsWith("GLO-")) {
      continue;
    }
    const field = `lots[${id ?? i}]`;
    if (id === null) {
      errors.push({ field, reason: "lot has no cbc:ID; skipped" });
      continue;
    }
    const process = child(lot, ...cac("TenderingProcess"));
    lots.push({
      id,
      project: readProject(child(lot, ...cac("ProcurementProject")), field, errors),
      framework: readFramework(process),
      deadline: readDeadline(process, `${field}.deadline`, errors),
    });
  }
  return lots;
}

/**
 * BT-765 from `TenderingProcess/ContractingSystem/ContractingSystemTypeCode`. The same element carries
 * the DPS usage (`@listName="dps-usage"`, also `none`), so `none` only counts with the framework listName;
 * the `fa-*` codes are unambiguous whatever the listName says.
 */
function readFramework(process: XmlElement | null): boolean | null {
  let framework: boolean | null = null;
  for (const code of pathAll(process, [cac("ContractingSystem"), cbc("ContractingSystemTypeCode")])) {
    const value = text(code);
    if (value !== null && FRAMEWORK_CODES.has(value)) {
      return true;
    }
    if (value === "none" && attr(code, "listName") === "framework-agreement") {
      framework = false;
    }
  }
  return framework;
}

/**
 * The tender deadline (BT-131, `TenderSubmissionDeadlinePeriod`), or for two-stage procedures that only
 * publish it, the deadline for requests to participate (BT-1311, `ParticipationRequestReceptionPeriod`):
 * either way the first deadline a prospective bidder faces. eForms dates and times carry their offset; a
 * date without a time runs to the end of that day.
 */
export function readDeadline(process: XmlElement | null, field: string, errors: FieldError[]): string | null {
  const period =
    child(process, ...cac("TenderSubmissionDeadlinePeriod")) ??
    child(process, ...cac("ParticipationRequestReceptionPeriod"));
  if (!period) {
    return null;
  }
  return readZonedInstant(
    child(period, ...cbc("EndDate")),
    child(period, ...cbc("EndTime")),
    { field, missingTime: END_OF_DAY, fallbackZone: DEFAULT_LOCAL_TIME_ZONE },
    errors,
  );
}

/** A BT-36 `cbc:DurationMeasure` in months, rounded to 2 decimals; zero is "not known". */
function readDurationMonths(measure: XmlElement | null, field: string, errors: FieldError[]): number | null {
  const raw = text(measure);
  if (raw === null) {
    return null;
  }
  const unit = attr(measure, "unitCode");
  const perUnit = unit !== null && Object.hasOwn(MONTHS_PER_UNIT, unit) ? MONTHS_PER_UNIT[unit] : undefined;
  if (perUnit === undefined) {
    fieldError(errors, field, `unknown duration unit ${unit ?? "(none)"}`, raw);
    return null;
  }
  if (!DURATION_RE.test(raw)) {
    fieldError(errors, field, "not a duration", raw);
    return null;
  }
  const months = Math.round(Number(raw) * perUnit * 100) / 100;
  return months === 0 ? null : months;
}
