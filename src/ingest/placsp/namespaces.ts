import type { XmlStep } from "../xml/element.ts";

/**
 * Namespace URIs of PLACSP feeds. Elements are matched on these, never on prefixes: prefixes and their
 * declaration order differ between feeds and years. Note that `cbc`/`cac` are the Spanish CODICE URIs,
 * not the OASIS UBL ones.
 */
export const NS = {
  atom: "http://www.w3.org/2005/Atom",
  at: "http://purl.org/atompub/tombstones/1.0",
  cbc: "urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2",
  cac: "urn:dgpe:names:draft:codice:schema:xsd:CommonAggregateComponents-2",
  cbcExt: "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonBasicComponents-2",
  cacExt: "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonAggregateComponents-2",
} as const;

/** Path steps, so paths read like the CODICE documentation: `[cac("ProcurementProject"), cbc("Name")]`. */
export const atom = (name: string): XmlStep => [NS.atom, name];
export const cbc = (name: string): XmlStep => [NS.cbc, name];
export const cac = (name: string): XmlStep => [NS.cac, name];
export const cbcExt = (name: string): XmlStep => [NS.cbcExt, name];
export const cacExt = (name: string): XmlStep => [NS.cacExt, name];
