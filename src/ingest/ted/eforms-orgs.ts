import type { FieldError } from "../model.ts";
import type { XmlElement, XmlStep } from "../xml/element.ts";
import { attr, child, children, path, pathAll, text } from "../xml/element.ts";
import { pickLanguage } from "./language.ts";
import { cac, cbc, efac, efext, ext } from "./namespaces.ts";
import type { PublishedParty } from "./party.ts";
import { readCountryAlpha3 } from "./values.ts";

/**
 * The eForms extension block and its organisation list. Nearly everything about results, tenders,
 * contracts, tendering parties and organisations sits in the root's `efext:EformsExtension` (ted.md §3.1);
 * parties are referenced everywhere else by technical ids (`ORG-0001`), matched on the `cbc:ID` text only
 * because `@schemeName` is inconsistent between producers.
 */

/** `{root}/ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/efext:EformsExtension` (the first). */
export function eformsExtension(root: XmlElement): XmlElement | null {
  for (const extension of pathAll(root, [ext("UBLExtensions"), ext("UBLExtension")])) {
    const found = path(extension, [ext("ExtensionContent"), efext("EformsExtension")]);
    if (found) {
      return found;
    }
  }
  return null;
}

/** `efac:Company` elements by their `cac:PartyIdentification/cbc:ID`; the first wins on duplicates. */
export function organizationsById(extension: XmlElement | null): Map<string, XmlElement> {
  const byId = new Map<string, XmlElement>();
  for (const company of pathAll(extension, [efac("Organizations"), efac("Organization"), efac("Company")])) {
    const id = text(path(company, [cac("PartyIdentification"), cbc("ID")]));
    if (id !== null && !byId.has(id)) {
      byId.set(id, company);
    }
  }
  return byId;
}

/**
 * One organisation as published: name (BT-500, in the preferred language), national id (BT-501
 * `CompanyID`, free text, with its `@schemeID`) and country (BT-514, alpha-3 → alpha-2). Null, with an
 * error, when it has no name: an unnamed id cannot identify a party.
 */
export function readOrganization(
  company: XmlElement,
  field: string,
  errors: FieldError[],
): PublishedParty | null {
  const name = pickLanguage(pathAll(company, [cac("PartyName"), cbc("Name")]));
  if (name === null) {
    errors.push({ field: `${field}.name`, reason: "organisation has no name" });
    return null;
  }
  const companyId = pathAll(company, [cac("PartyLegalEntity"), cbc("CompanyID")]).find(
    (el) => text(el) !== null,
  );
  return {
    name,
    rawId: text(companyId),
    idScheme: attr(companyId, "schemeID"),
    country: readCountryAlpha3(
      path(company, [cac("PostalAddress"), cac("Country"), cbc("IdentificationCode")]),
      `${field}.country`,
      errors,
    ),
  };
}

/** The `cbc:ID` texts of `el`'s repeated reference children (`efac:LotResult/efac:LotTender/cbc:ID`). */
export function referencedIds(el: XmlElement | null, refName: XmlStep): string[] {
  const ids: string[] = [];
  for (const ref of children(el, ...refName)) {
    const id = text(child(ref, ...cbc("ID")));
    if (id !== null) {
      ids.push(id);
    }
  }
  return ids;
}
