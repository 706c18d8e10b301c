import { parseIsoDate } from "../../lib/dates.ts";
import type { FieldError } from "../model.ts";
import {
  collapse,
  fieldError,
  parseAmount,
  parseCount,
  parseCpv,
  parseCurrency,
  parseNuts,
} from "../values.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, text } from "../xml/element.ts";
import type { CodeList } from "./codes.ts";
import { isKnownCode } from "./codes.ts";

/**
 * Strict readers for CODICE leaf values. Each returns null when the element is absent, and null plus a
 * `FieldError` pushed onto `errors` when a value is present but does not parse: a wrong value is worse than
 * a missing one, so nothing is guessed or repaired beyond trimming.
 */

const COUNTRY_RE = /^[A-Z]{2}$/;

export { fieldError } from "../values.ts";

/** A monetary amount (zero reads as unknown, see `parseAmount`). */
export function readAmount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  return parseAmount(text(el), field, errors);
}

/** `@currencyID` of an amount element (ISO 4217). */
export function readCurrency(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  return parseCurrency(attr(el, "currencyID"), field, errors);
}

/** A non-negative integer count; 0 is a real count here (no bids is information). */
export function readCount(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  return parseCount(text(el), field, errors);
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
  return parseCpv(text(el), field, errors);
}

/** A NUTS code (`ES`, `ES5`, `ES51`, `ES511`). */
export function readNuts(el: XmlElement | null, field: string, errors: FieldError[]): string | null {
  return parseNuts(text(el), field, errors);
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
  return collapse(text(el));
}
