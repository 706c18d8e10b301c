import type { XmlStep } from "../xml/element.ts";

/**
 * Namespace URIs of TED notices. Elements are matched on these, never on prefixes: the same eForms root is
 * published as `<ContractNotice xmlns=…>` and as `<urn:ContractNotice xmlns:urn=…>` (ted.md §6.8).
 */
export const NS = {
  /** eForms roots, by local name: each root element has its own UBL document namespace. */
  contractNotice: "urn:oasis:names:specification:ubl:schema:xsd:ContractNotice-2",
  contractAwardNotice: "urn:oasis:names:specification:ubl:schema:xsd:ContractAwardNotice-2",
  priorInformationNotice: "urn:oasis:names:specification:ubl:schema:xsd:PriorInformationNotice-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  efext: "http://data.europa.eu/p27/eforms-ubl-extensions/1",
  efac: "http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1",
  efbc: "http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1",
  /** Legacy TED-XML R2.0.9 (`TED_EXPORT`): default namespace of the whole document. */
  r209: "http://publications.europa.eu/resource/schema/ted/R2.0.9/publication",
  /** NUTS elements inside R2.0.9 notices (`n2016:NUTS`, `n2016:PERFORMANCE_NUTS`). */
  n2016: "http://publications.europa.eu/resource/schema/ted/2016/nuts",
} as const;

/** eForms root elements this module normalizes: local name → namespace URI. */
export const EFORMS_ROOTS: ReadonlyMap<string, string> = new Map([
  ["ContractNotice", NS.contractNotice],
  ["ContractAwardNotice", NS.contractAwardNotice],
  ["PriorInformationNotice", NS.priorInformationNotice],
]);

/** Whether `{ns}name` is one of the eForms roots above. */
export function isEformsRoot(ns: string, name: string): boolean {
  return EFORMS_ROOTS.get(name) === ns;
}

/** Whether `{ns}name` is the R2.0.9 `TED_EXPORT` root. */
export function isR209Root(ns: string, name: string): boolean {
  return ns === NS.r209 && name === "TED_EXPORT";
}

/** Path steps, so paths read like the field map: `[cac("ProcurementProject"), cbc("Name")]`. */
export const cbc = (name: string): XmlStep => [NS.cbc, name];
export const cac = (name: string): XmlStep => [NS.cac, name];
export const ext = (name: string): XmlStep => [NS.ext, name];
export const efext = (name: string): XmlStep => [NS.efext, name];
export const efac = (name: string): XmlStep => [NS.efac, name];
export const efbc = (name: string): XmlStep => [NS.efbc, name];
export const ted = (name: string): XmlStep => [NS.r209, name];
export const n2016 = (name: string): XmlStep => [NS.n2016, name];
