import { parseIsoDate } from "../../lib/dates.ts";
import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, text } from "../xml/element.ts";
import type { CodeList } from "./codes.ts";
import { isKnownCode } from "./codes.ts";

/**
 * Strict readers for CODICE leaf values. Each returns null when the element is absent, and null plus a
 * `FieldError` pushed onto `errors` when a value is present but does not parse: a wrong value is worse than
 * a missing one, so nothing is guessed or repaired beyond trimming.
 */

// xs:decimal as PLACSP writes it: digits with an optional "." fraction, no grouping, no exponent.
const DECIMAL_RE = /^\d+(?:\.\d+)?$/;
const COUNT_RE = /^\d+$/;
const CURRENCY_RE = /^[A-Z]{3}$/;
// CPV codes are published without the check digit; tolerate one ("72313000-2") and drop it.
const CPV_RE = /^(\d{8})(?:-\d)?$/;
const NUTS_RE = /^[A-Z]{2}[0-9A-Z]{0,3}$/;
const COUNTRY_RE = /^[A-Z]{2}$/;

export function fieldError(errors: FieldError[], field: string, reason: string, raw: string): void {
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  errors.push({ field, reason: `${reason}: "${shown}"` });
}

/**
 * A monetary amount. Zero is treated as "not known" (null, no error): PLACSP uses 0 where a buyer left an
 * amount blank, and a 0 € award is never real.
 */
export function readAmount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  const raw = text(el);
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

/** `@currencyID` of an amount element (ISO 4217). */
export function readCurrency(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  const raw = attr(el, "currencyID");
  if (raw === null) {
    return null;
  }
  if (!CURRENCY_RE.test(raw)) {
    fieldError(errors, field, "not an ISO 4217 currency code", raw);
    return null;
  }
  return raw;
}

/** A non-negative integer count; 0 is a real count here (no bids is information). */
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

/** A calendar date `YYYY-MM-DD` (an `xs:date` offset suffix is dropped). */
export function readDate(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  const raw = text(el);
  if (raw === null) {
    return null;
  }
  const date = parseIsoDate(raw);
  if (date === null) {
    fieldError(errors, field, "not a calendar date", raw);
  }
  return date;
}

/** A code that must belong to `list`; kept exactly as published when it does. */
export function readCode(
  el: XmlElement | null,
  list: CodeList,
  field: string,
  errors: FieldError[],
): string | null {
  const raw = text(el);
  if (raw === null) {
    return null;
  }
  if (!isKnownCode(list, raw)) {
    fieldError(errors, field, "not a code of the PLACSP code list", raw);
    return null;
  }
  return raw;
}

/** An 8-digit CPV code without check digit. */
export function readCpv(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  const raw = text(el);
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

/** A NUTS code (`ES`, `ES5`, `ES51`, `ES511`). */
export function readNuts(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  return readPattern(el, NUTS_RE, "not a NUTS code", field, errors);
}

/** An ISO 3166-1 alpha-2 country code. */
export function readCountry(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  return readPattern(el, COUNTRY_RE, "not an ISO 3166 country code", field, errors);
}

function readPattern(
  el: XmlElement | null,
  pattern: RegExp,
  reason: string,
  field: string,
  errors: FieldError[],
): string | null {
  const raw = text(el);
  if (raw === null) {
    return null;
  }
  if (!pattern.test(raw)) {
    fieldError(errors, field, reason, raw);
    return null;
  }
  return raw;
}

/** Trimmed text with internal whitespace runs (double spaces, `&#xD;` line breaks) collapsed to one space. */
export function collapsedText(el: XmlElement | null): string | null {
  const raw = text(el);
  return raw === null ? null : raw.replace(/\s+/g, " ");
}
