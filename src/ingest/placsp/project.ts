import type { FieldError } from "../model.ts";
import { joinTexts } from "../values.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, path, pathAll, text } from "../xml/element.ts";
import { cac, cbc } from "./namespaces.ts";
import { fieldError, readCpv, readDate, readNuts } from "./values.ts";

/**
 * What we read from a `cac:ProcurementProject`, the block shared by the folder and by each lot
 * (`cac:ProcurementProjectLot/cac:ProcurementProject`).
 */
export interface ProjectInfo {
  /** CPV codes in document order, deduplicated; the first is the main one by convention. */
  cpvs: string[];
  /** First `RealizedLocation/CountrySubentityCode`. */
  nuts: string | null;
  durationMonths: number | null;
  /** `PlannedPeriod/StartDate` as published: the start the buyer plans, not the contract's actual start. */
  plannedStartDate: string | null;
  /** `PlannedPeriod/EndDate` as published. */
  plannedEndDate: string | null;
  /** `ContractExtension`: the announced extensions/options (see `readExtension`). */
  extension: ExtensionInfo;
}

/** What a `cac:ContractExtension` announces; every field null when the block is absent. */
export interface ExtensionInfo {
  /** `OptionsDescription`, then `OptionValidityPeriod/Description`, joined by `joinTexts`. */
  text: string | null;
  /** `OptionValidityPeriod/DurationMeasure` in months, converted like the contract's duration. */
  months: number | null;
  /** `OptionValidityPeriod/EndDate`. */
  endDate: string | null;
}

/**
 * Months per unit of `cbc:DurationMeasure/@unitCode` (UN/ECE rec. 20 codes). Days use a 365-day year
 * (days × 12 / 365), so the common "365 días" / "730 días" durations come out as exactly 12 / 24 months.
 */
const MONTHS_PER_UNIT: Readonly<Record<string, number>> = {
  DAY: 12 / 365,
  WEE: (7 * 12) / 365,
  MON: 1,
  ANN: 12,
};

const DURATION_RE = /^\d+(?:\.\d+)?$/;

export function readProject(project: XmlElement | null, field: string, errors: FieldError[]): ProjectInfo {
  const cpvs: string[] = [];
  const codes = pathAll(project, [cac("RequiredCommodityClassification"), cbc("ItemClassificationCode")]);
  for (const [i, code] of codes.entries()) {
    const cpv = readCpv(code, `${field}.cpv[${i}]`, errors);
    if (cpv !== null && !cpvs.includes(cpv)) {
      cpvs.push(cpv);
    }
  }
  const period = child(project, ...cac("PlannedPeriod"));
  return {
    cpvs,
    nuts: readNuts(
      path(project, [cac("RealizedLocation"), cbc("CountrySubentityCode")]),
      `${field}.nuts`,
      errors,
    ),
    durationMonths: readDurationMonths(child(period, ...cbc("DurationMeasure")), `${field}.duration`, errors),
    plannedStartDate: readDate(child(period, ...cbc("StartDate")), `${field}.plannedStartDate`, errors),
    plannedEndDate: readDate(child(period, ...cbc("EndDate")), `${field}.plannedEndDate`, errors),
    extension: readExtension(child(project, ...cac("ContractExtension")), `${field}.extension`, errors),
  };
}

/**
 * `cac:ContractExtension` (placsp.md §5 "extensions"). Its `OptionValidityPeriod` is a UBL PeriodType, so
 * besides its description it may carry a `DurationMeasure` and an `EndDate`; only those give the months and
 * the end date, nothing is read out of the free text.
 */
function readExtension(extension: XmlElement | null, field: string, errors: FieldError[]): ExtensionInfo {
  const period = child(extension, ...cac("OptionValidityPeriod"));
  return {
    text: joinTexts([
      text(child(extension, ...cbc("OptionsDescription"))),
      text(child(period, ...cbc("Description"))),
    ]),
    months: readDurationMonths(child(period, ...cbc("DurationMeasure")), `${field}.months`, errors),
    endDate: readDate(child(period, ...cbc("EndDate")), `${field}.endDate`, errors),
  };
}

/** A `cbc:DurationMeasure` converted to months, rounded to 2 decimals. Zero is "not known". */
export function readDurationMonths(
  measure: XmlElement | null,
  field: string,
  errors: FieldError[],
): number | null {
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
