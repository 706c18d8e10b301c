import type { XmlElement } from "../xml/element.ts";
import { attr, child, children } from "../xml/element.ts";
import { LEGACY_LANGUAGE_PREFERENCE, pickByLanguage } from "./language.ts";
import { ted } from "./namespaces.ts";

/**
 * Shared helpers for legacy TED-XML R2.0.9 (`TED_EXPORT`). All R2.0.9 elements are in one default
 * namespace except the `n2016:` NUTS ones. The form itself sits in `FORM_SECTION` once per language for
 * notices from EU institutions (`@CATEGORY="ORIGINAL"` plus `TRANSLATION`s), once otherwise.
 */

export interface R209Forms {
  /** The original-language form: every structured value (codes, amounts, dates, parties) comes from it. */
  original: XmlElement;
  /** The form whose language is preferred for texts (Spanish, English, else the original). */
  texts: XmlElement;
}

/** The original and text forms of the notice, or null when `FORM_SECTION` holds no form at all. */
export function selectForms(root: XmlElement): R209Forms | null {
  const forms = child(root, ...ted("FORM_SECTION"))?.children ?? [];
  const original = forms.find((form) => attr(form, "CATEGORY") === "ORIGINAL") ?? forms[0];
  if (original === undefined) {
    return null;
  }
  // Translations of the same form only: their structure is the original's, in another language.
  const candidates = [original, ...forms.filter((f) => f !== original && f.name === original.name)];
  const texts =
    pickByLanguage(candidates, (form) => attr(form, "LG"), LEGACY_LANGUAGE_PREFERENCE) ?? original;
  return { original, texts };
}

/**
 * All the character data under an element, children included. Needed for R2.0.9 `<P>` paragraphs, which
 * may contain formatting children (`<FT>`). The element tree keeps an element's own text apart from its
 * children, so for such mixed content the order of the pieces is approximate; plain paragraphs are exact.
 */
export function deepText(el: XmlElement): string {
  return el.text + el.children.map(deepText).join("");
}

/**
 * The `<P>` paragraphs of a text block (`TITLE`, `SHORT_DESCR`) joined with one space, as OP's TED-XML →
 * eForms converter joins them, so both formats of one notice read the same text. Null when empty.
 */
export function paragraphs(block: XmlElement | null): string | null {
  const parts = children(block, ...ted("P"))
    .map((p) => deepText(p).trim())
    .filter((p) => p !== "");
  return parts.length === 0 ? null : parts.join(" ");
}
