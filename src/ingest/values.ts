import type { FieldError } from "./model.ts";

/**
 * Strict parsers for the leaf values every source publishes (amounts, currencies, counts, CPV and NUTS codes).
 * Each returns null when the value is absent, and null plus a `FieldError` pushed onto `errors` when a value is
 * present but does not parse: a wrong value is worse than a missing one, so nothing is guessed or repaired
 * beyond trimming. The PLACSP and TED readers apply them to element text or attributes.
 */

// xs:decimal as the sources write it: digits with an optional "." fraction, no grouping, sign or exponent.
const DECIMAL_RE = /^\d+(?:\.\d+)?$/;
const COUNT_RE = /^\d+$/;
const CURRENCY_RE = /^[A-Z]{3}$/;
// CPV codes are published without the check digit; tolerate one ("72313000-2") and drop it.
const CPV_RE = /^(\d{8})(?:-\d)?$/;
const NUTS_RE = /^[A-Z]{2}[0-9A-Z]{0,3}$/;

export function fieldError(errors: FieldError[], field: string, reason: string, raw: string): void {
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  errors.push({ field, reason: `${reason}: "${shown}"` });
}

/**
 * A monetary amount. Zero is "not known" (null, no error): PLACSP uses 0 where a buyer left an amount blank,
 * and a 0 € award is never real.
 */
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

/** An ISO 4217 currency code. */
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

/** A non-negative integer count; 0 is a real count here (no bids is information). */
export function parseCount(raw: string | null, field: string, errors: FieldError[]): number | null {
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

/** An 8-digit CPV code without check digit. */
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

/** Trimmed text with internal whitespace runs (double spaces, `&#xD;` line breaks) collapsed to one space. */
export function collapse(raw: string | null): string | null {
  if (raw === null) {
    return null;
  }
  const collapsed = raw.replace(/\s+/g, " ").trim();
  return collapsed === "" ? null : collapsed;
}

/**
 * Several free-text statements about one fact (options, renewals, …) as one text: each collapsed (CODICE and
 * eForms texts carry `&#xD;` line breaks and indentation), empty ones dropped and a statement repeated in
 * two elements kept once, in the given order, one per line so their boundaries stay visible.
 * Null when nothing is left.
 */
export function joinTexts(parts: readonly (string | null)[]): string | null {
  const kept: string[] = [];
  for (const part of parts) {
    const collapsed = collapse(part);
    if (collapsed !== null && !kept.includes(collapsed)) {
      kept.push(collapsed);
    }
  }
  return kept.length === 0 ? null : kept.join("\n");
}
