import type { XmlElement } from "../xml/element.ts";
import { attr, text } from "../xml/element.ts";

/**
 * Which language a multilingual text is read in. eForms repeats `cbc:Name`, `cbc:Description`, … once per
 * `@languageID` (ISO 639-2/B, upper case: `SPA`, `NLD`, `FRA`); R2.0.9 EU-institution notices repeat the
 * whole form per `@LG` (ISO 639-1: `ES`, `EN`). The service is Spanish-first, so Spanish wins, then English
 * (the lingua franca most of our users read), then whatever comes first in the document. The notice's own
 * language is deliberately not a step: for a bilingual BEL notice (NLD + FRA) the choice between the two is
 * arbitrary anyway, and document order keeps it predictable.
 */
export const LANGUAGE_PREFERENCE: readonly string[] = ["SPA", "ENG"];

/** ISO 639-1 codes of R2.0.9 `@LG`, in the same preference order. */
export const LEGACY_LANGUAGE_PREFERENCE: readonly string[] = ["ES", "EN"];

/**
 * The text of the preferred-language element among `variants` (same element repeated per language).
 * Empty variants are skipped; an element without `languageID` counts as "first" only.
 */
export function pickLanguage(variants: readonly XmlElement[]): string | null {
  const filled = variants.filter((el) => text(el) !== null);
  return text(pickByLanguage(filled, (el) => attr(el, "languageID"), LANGUAGE_PREFERENCE));
}

/** The preferred item by a language code read from each item; the first item when none matches. */
export function pickByLanguage<T>(
  items: readonly T[],
  languageOf: (item: T) => string | null,
  preference: readonly string[],
): T | null {
  for (const wanted of preference) {
    const found = items.find((item) => languageOf(item)?.toUpperCase() === wanted);
    if (found !== undefined) {
      return found;
    }
  }
  return items[0] ?? null;
}
