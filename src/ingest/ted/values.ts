import { parseIsoDate, zonedDateTimeToInstant } from "../../lib/dates.ts";
import type { FieldError } from "../model.ts";
import { fieldError, parseAmount, parseCount } from "../values.ts";
import type { XmlElement } from "../xml/element.ts";
import { text } from "../xml/element.ts";
import { alpha2FromAlpha3, alpha2FromLegacy } from "./countries.ts";

export {
  collapse,
  fieldError,
  joinTexts,
  parseAmount,
  parseCpv,
  parseCurrency,
  parseNuts,
} from "../values.ts";

/**
 * Strict readers for TED leaf values (eForms and R2.0.9). Each returns null when the value is absent, and
 * null plus a `FieldError` pushed onto `errors` when a value is present but does not parse: a wrong value
 * is worse than a missing one, so nothing is guessed or repaired beyond trimming.
 */

/** eForms `xs:date`: the calendar date with an optional `Z` or offset (`2024-10-10+02:00`). */
const ZONED_DATE_RE = /^(\d{4}-\d{2}-\d{2})(Z|[+-]\d{2}:\d{2})?$/;
/** R2.0.9 compact dates in the coded section (`DATE_PUB`, `DS_DATE_DISPATCH`): `20200331`. */
const COMPACT_DATE_RE = /^(\d{4})(\d{2})(\d{2})$/;
const TIME_OFFSET_RE = /(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * eForms fills mandatory UBL dates it has no value for with `2000-01-01` (root `TenderResult/AwardDate` in
 * every CAN seen, ted.md §6.1). That day is never a real procurement date here, so it reads as absent.
 */
export const PLACEHOLDER_DATE = "2000-01-01";

/** A deadline published without a time runs to the end of that day (midnight would close it a day early). */
export const END_OF_DAY = "23:59:59";

/** A monetary amount. Zero is "not known" (null, no error), as in the PLACSP reader. */
export function readAmount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  return parseAmount(text(el), field, errors);
}

/** A non-negative integer count; 0 is a real count (no bids is information). */
export function readCount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  return parseCount(text(el), field, errors);
}

/**
 * A calendar date `YYYY-MM-DD` from an `xs:date` (its offset is dropped: the published day is the date).
 * The `2000-01-01` placeholder reads as null without an error.
 */
export function readDate(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  return parseDate(text(el), field, errors);
}

/** `readDate` for a string; also accepts R2.0.9's compact `YYYYMMDD`. */
export function parseDate(raw: string | null, field: string, errors: FieldError[]): string | null {
  if (raw === null) {
    return null;
  }
  const compact = COMPACT_DATE_RE.exec(raw);
  const date = parseIsoDate(compact ? `${compact[1]}-${compact[2]}-${compact[3]}` : raw);
  if (date === null) {
    fieldError(errors, field, "not a calendar date", raw);
    return null;
  }
  return date === PLACEHOLDER_DATE ? null : date;
}

/**
 * An eForms date plus optional time (`EndDate` + `EndTime`, `IssueDate` + `IssueTime`, …) as a UTC instant.
 * eForms writes the offset on both parts (`2023-09-20+03:00`, `17:00:00+03:00`); the time's offset wins,
 * then the date's, then `fallbackZone` (a value without any offset is not expected in eForms). A missing
 * time is `missingTime` (midnight for publication stamps, end of day for deadlines).
 */
export function readZonedInstant(
  dateEl: XmlElement | null,
  timeEl: XmlElement | null,
  options: { field: string; missingTime: string; fallbackZone: string },
  errors: FieldError[],
): string | null {
  const date = text(dateEl);
  const time = text(timeEl);
  if (date === null) {
    if (time !== null) {
      fieldError(errors, options.field, "time without a date", time);
    }
    return null;
  }
  const match = ZONED_DATE_RE.exec(date);
  let instant: string | null = null;
  if (match?.[1]) {
    const dateOffset = match[2];
    let wallTime = time ?? options.missingTime;
    if (dateOffset !== undefined && !TIME_OFFSET_RE.test(wallTime)) {
      wallTime = `${wallTime}${dateOffset}`;
    }
    instant = zonedDateTimeToInstant(match[1], wallTime, options.fallbackZone);
  }
  if (instant === null) {
    fieldError(errors, options.field, "not a date and time", `${date} ${time ?? ""}`.trim());
  }
  return instant;
}

/** An eForms alpha-3 country code (`ESP`) as ISO alpha-2 (`ES`). */
export function readCountryAlpha3(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  const raw = text(el);
  if (raw === null) {
    return null;
  }
  const alpha2 = alpha2FromAlpha3(raw);
  if (alpha2 === null) {
    fieldError(errors, field, "not an ISO 3166 alpha-3 country code", raw);
  }
  return alpha2;
}

/** An R2.0.9 alpha-2 country code (`ES`, `UK`) as ISO alpha-2 (`ES`, `GB`). */
export function parseCountryLegacy(raw: string | null, field: string, errors: FieldError[]): string | null {
  if (raw === null) {
    return null;
  }
  const alpha2 = alpha2FromLegacy(raw);
  if (alpha2 === null) {
    fieldError(errors, field, "not an ISO 3166 alpha-2 country code", raw);
  }
  return alpha2;
}
