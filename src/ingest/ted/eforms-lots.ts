import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, pathAll, text } from "../xml/element.ts";
import { DEFAULT_LOCAL_TIME_ZONE } from "./countries.ts";
import { LANGUAGE_PREFERENCE, pickLanguage } from "./language.ts";
import { cac, cbc } from "./namespaces.ts";
import {
  END_OF_DAY,
  fieldError,
  joinTexts,
  parseCpv,
  parseNuts,
  readCount,
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
  /** `ContractExtension` (BT-54, BT-57, BT-58): see `readExtension`. */
  extension: LotExtension;
}

/** What a lot's `cac:ContractExtension` announces; every field null when the block is absent. */
export interface LotExtension {
  /** BT-54, BT-57 and BT-58 as one text (see `readExtension`). */
  text: string | null;
  /** `Renewal/Period/DurationMeasure` in months, as BT-36 is converted; null unless the period is structured. */
  months: number | null;
  /** `Renewal/Period/EndDate`. */
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
    extension: readExtension(child(project, ...cac("ContractExtension")), `${field}.extension`, errors),
  };
}

/**
 * A lot's `cac:ContractExtension`. The text joins (`joinTexts`, one per line, in this order) the options
 * description (BT-54 `OptionsDescription`), the renewal description (BT-57 `Renewal/Period/Description`) and
 * the maximum number of renewals (BT-58 `MaximumNumberNumeric`) as `Renewals: at most N`, because a count
 * without its text is still an announced extension. Both descriptions are read in one language when they
 * share one (see `extensionLanguage`), so that the joined text does not switch language mid-way.
 *
 * Months and end date come only from the structured `Renewal/Period` (`DurationMeasure`, `EndDate`): they
 * are never parsed out of the descriptions, and the renewal count is not turned into months (the length of
 * one renewal is not given).
 */
function readExtension(extension: XmlElement | null, field: string, errors: FieldError[]): LotExtension {
  const options = children(extension, ...cbc("OptionsDescription"));
  const periods = pathAll(extension, [cac("Renewal"), cac("Period")]);
  const renewals = periods.flatMap((p) => children(p, ...cbc("Description")));
  const language = extensionLanguage([options, renewals]);
  const maximum = readCount(child(extension, ...cbc("MaximumNumberNumeric")), `${field}.maxRenewals`, errors);
  const period = periods[0] ?? null;
  return {
    text: joinTexts([
      inLanguage(options, language),
      inLanguage(renewals, language),
      // 0 renewals at most announces none.
      maximum === null || maximum === 0 ? null : `Renewals: at most ${maximum}`,
    ]),
    months: readDurationMonths(child(period, ...cbc("DurationMeasure")), `${field}.months`, errors),
    endDate: readDate(child(period, ...cbc("EndDate")), `${field}.endDate`, errors),
  };
}

/**
 * The one language the extension texts are read in: among the languages every one of them is published in,
 * the first of language.ts's preferences (Spanish, then English), else the first in document order. When
 * they share none, each text falls back to its own `pickLanguage` choice.
 */
function extensionLanguage(groups: readonly (readonly XmlElement[])[]): string | null {
  const published = groups
    .map((variants) =>
      variants.flatMap((el) => {
        const language = text(el) === null ? null : attr(el, "languageID")?.toUpperCase();
        return language ? [language] : [];
      }),
    )
    .filter((languages) => languages.length > 0);
  const [first = [], ...others] = published;
  const shared = first.filter((language) => others.every((languages) => languages.includes(language)));
  return LANGUAGE_PREFERENCE.find((wanted) => shared.includes(wanted)) ?? shared[0] ?? null;
}

/** The variant in `language`; when the element is not published in it, the usual `pickLanguage` choice. */
function inLanguage(variants: readonly XmlElement[], language: string | null): string | null {
  const match = variants.find(
    (el) => text(el) !== null && attr(el, "languageID")?.toUpperCase() === language,
  );
  return match === undefined ? pickLanguage(variants) : text(match);
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
