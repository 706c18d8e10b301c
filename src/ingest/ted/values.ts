import { parseIsoDate, zonedDateTimeToInstant } from "../../lib/dates.ts";
import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { text } from "../xml/element.ts";
import { alpha2FromAlpha3, alpha2FromLegacy } from "./countries.ts";

/**
 * Strict readers for TED leaf values (eForms and R2.0.9). Each returns null when the value is absent, and
 * null plus a `FieldError` pushed onto `errors` when a value is present but does not parse: a wrong value
 * is worse than a missing one, so nothing is guessed or repaired beyond trimming.
 */

// xs:decimal as TED writes it: digits with an optional "." fraction, no grouping, no sign, no exponent.
const DECIMAL_RE = /^\d+(?:\.\d+)?$/;
const COUNT_RE = /^\d+$/;
const CURRENCY_RE = /^[A-Z]{3}$/;
// CPV codes are published without the check digit; tolerate one ("72313000-2") and drop it.
const CPV_RE = /^(\d{8})(?:-\d)?$/;
const NUTS_RE = /^[A-Z]{2}[0-9A-Z]{0,3}$/;
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

export function fieldError(errors: FieldError[], field: string, reason: string, raw: string): void {
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  errors.push({ field, reason: `${reason}: "${shown}"` });
}

/** A monetary amount. Zero is "not known" (null, no error), as in the PLACSP reader. */
export function readAmount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  return parseAmount(text(el), field, errors);
}

/** The same rule for an amount held in a string (R2.0.9 attributes and text). */
export function parseAmount(raw: string | null, field: string, errors: FieldError[]): number | null {
  if (raw === null) {
    return null;
  }
  if (!DECIMAL_RE.test(raw)) {
    fieldError(errors, field, "not a decimal amount", raw);
    return null;
  }
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    fieldError(errors, field, "amount out of range", raw);
    return null;
  }
  return value === 0 ? null : value;
}

/** An ISO 4217 currency code (eForms `@currencyID`, R2.0.9 `@CURRENCY`). */
export function parseCurrency(raw: string | null, field: string, errors: FieldError[]): string | null {
  if (raw === null) {
    return null;
  }
  if (!CURRENCY_RE.test(raw)) {
    fieldError(errors, field, "not an ISO 4217 currency code", raw);
    return null;
  }
  return raw;
}

/** A non-negative integer count; 0 is a real count (no bids is information). */
export function readCount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  const raw = text(el);
  if (raw === null) {
    return null;
  }
  const value = Number(raw);
  if (!COUNT_RE.test(raw) || !Number.isSafeInteger(value)) {
    fieldError(errors, field, "not a non-negative integer", raw);
    return null;
  }
  return value;
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

/** An 8-digit CPV code without check digit, from element text or an R2.0.9 `@CODE`. */
export function parseCpv(raw: string | null, field: string, errors: FieldError[]): string | null {
  if (raw === null) {
    return null;
  }
  const match = CPV_RE.exec(raw);
  if (!match?.[1]) {
    fieldError(errors, field, "not a CPV code", raw);
    return null;
  }
  return match[1];
}

/** A NUTS code (`ES`, `ES5`, `ES51`, `ES511`; `UK`, `EL301`). */
export function parseNuts(raw: string | null, field: string, errors: FieldError[]): string | null {
  if (raw === null) {
    return null;
  }
  if (!NUTS_RE.test(raw)) {
    fieldError(errors, field, "not a NUTS code", raw);
    return null;
  }
  return raw;
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

/** Trimmed text with internal whitespace runs collapsed to one space (titles, names). */
export function collapse(raw: string | null): string | null {
  if (raw === null) {
    return null;
  }
  const collapsed = raw.replace(/\s+/g, " ").trim();
  return collapsed === "" ? null : collapsed;
}
