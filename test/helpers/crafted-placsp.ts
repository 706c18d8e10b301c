import { buildPage, splitFeed, TWO_ENTRIES } from "./placsp.ts";

/**
 * Small hand-made PLACSP entries, for cases the real fixtures do not cover (frameworks, joint ventures, several
 * buyers and suppliers, dated award series). They use the element names, nesting and code-list URIs of the real
 * licitaciones feed, carry only what the aggregates read, and go through the real pipeline (`ingestPage`)
 * inside the real feed header. Ids and links are on `crafted.invalid`.
 */

export const CRAFTED_PREFIX = "https://crafted.invalid/sindicacion/licitacionesPerfilContratante/";

const CL = "http://contrataciondelestado.es/codice/cl";

export interface CraftedParty {
  name: string;
  /** Published id (schemeName NIF); it may be invalid on purpose. */
  nif?: string;
}

export interface CraftedResult {
  winner?: CraftedParty | null;
  /** TenderResultCode: 8 adjudicado (default), 3 desierto (void: no winner, no value). */
  resultCode?: string;
  awardDate?: string | null;
  value?: number | null;
  currency?: string;
  lot?: string;
}

/** A `cac:ContractExtension` (announced extensions/options); each part is written only when given. */
export interface CraftedExtension {
  /** `cbc:OptionsDescription`. */
  options?: string;
  /** `cac:OptionValidityPeriod/cbc:Description`. */
  description?: string;
  /** `OptionValidityPeriod/cbc:DurationMeasure` with its `@unitCode` (DAY, MON, ANN, …). */
  duration?: { value: string; unit: string };
  /** `OptionValidityPeriod/cbc:EndDate`. */
  endDate?: string;
}

/** A `cac:ProcurementProjectLot` (results refer to it by `lot`). */
export interface CraftedLot {
  id: string;
  extension?: CraftedExtension;
}

export interface CraftedEntry {
  /** Entry number: the id is `${CRAFTED_PREFIX}${n}`. */
  n: number;
  updated?: string;
  title?: string;
  buyer: { name: string; nif?: string; platformId?: string; orgType?: string };
  cpv: string;
  /** ContractingSystemCode 1 (framework agreement: award values are ceilings) instead of 0. */
  framework?: boolean;
  /** The folder's `ProcurementProject/cac:ContractExtension`. */
  extension?: CraftedExtension;
  lots?: CraftedLot[];
  results: CraftedResult[];
}

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function partyIds(ids: [string, string | undefined][]): string {
  return ids
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(
      ([scheme, id]) =>
        `<cac:PartyIdentification><cbc:ID schemeName="${scheme}">${esc(id)}</cbc:ID></cac:PartyIdentification>`,
    )
    .join("");
}

function resultXml(result: CraftedResult): string {
  const winner = result.winner
    ? `<cac:WinningParty>${partyIds([["NIF", result.winner.nif]])}` +
      `<cac:PartyName><cbc:Name>${esc(result.winner.name)}</cbc:Name></cac:PartyName></cac:WinningParty>`
    : "";
  const amount =
    result.value === null || result.value === undefined
      ? ""
      : `<cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="${result.currency ?? "EUR"}">${result.value}` +
        "</cbc:TaxExclusiveAmount></cac:LegalMonetaryTotal>";
  const lot =
    result.lot === undefined
      ? ""
      : `<cbc:ProcurementProjectLotID>${result.lot}</cbc:ProcurementProjectLotID>`;
  return (
    "<cac:TenderResult>" +
    `<cbc:ResultCode listURI="${CL}/2.09/TenderResultCode-2.09.gc">${result.resultCode ?? "8"}</cbc:ResultCode>` +
    (result.awardDate ? `<cbc:AwardDate>${result.awardDate}</cbc:AwardDate>` : "") +
    winner +
    `<cac:AwardedTenderedProject>${lot}${amount}</cac:AwardedTenderedProject>` +
    "</cac:TenderResult>"
  );
}

function extensionXml(extension: CraftedExtension | undefined): string {
  if (extension === undefined) {
    return "";
  }
  const { options, description, duration, endDate } = extension;
  const period =
    (description === undefined ? "" : `<cbc:Description>${esc(description)}</cbc:Description>`) +
    (duration === undefined
      ? ""
      : `<cbc:DurationMeasure unitCode="${duration.unit}">${duration.value}</cbc:DurationMeasure>`) +
    (endDate === undefined ? "" : `<cbc:EndDate>${endDate}</cbc:EndDate>`);
  return (
    "<cac:ContractExtension>" +
    (options === undefined ? "" : `<cbc:OptionsDescription>${esc(options)}</cbc:OptionsDescription>`) +
    (period === "" ? "" : `<cac:OptionValidityPeriod>${period}</cac:OptionValidityPeriod>`) +
    "</cac:ContractExtension>"
  );
}

function lotXml(lot: CraftedLot): string {
  return (
    `<cac:ProcurementProjectLot><cbc:ID schemeName="ID_LOTE">${esc(lot.id)}</cbc:ID>` +
    `<cac:ProcurementProject>${extensionXml(lot.extension)}</cac:ProcurementProject>` +
    "</cac:ProcurementProjectLot>\n    "
  );
}

export function craftedEntry(entry: CraftedEntry): string {
  const { buyer } = entry;
  return `<entry>
  <id>${CRAFTED_PREFIX}${entry.n}</id>
  <link href="https://crafted.invalid/detalle/${entry.n}"/>
  <title>${esc(entry.title ?? `Contrato ${entry.n}`)}</title>
  <updated>${entry.updated ?? "2026-01-15T10:00:00.000+01:00"}</updated>
  <cac-place-ext:ContractFolderStatus>
    <cbc:ContractFolderID>CRAFTED-${entry.n}</cbc:ContractFolderID>
    <cac-place-ext:LocatedContractingParty>
      <cbc:ContractingPartyTypeCode listURI="${CL}/2.10/ContractingAuthorityCode-2.10.gc">${buyer.orgType ?? "3"}</cbc:ContractingPartyTypeCode>
      <cac:Party>
        ${partyIds([
          ["NIF", buyer.nif],
          ["ID_PLATAFORMA", buyer.platformId],
        ])}
        <cac:PartyName><cbc:Name>${esc(buyer.name)}</cbc:Name></cac:PartyName>
      </cac:Party>
    </cac-place-ext:LocatedContractingParty>
    <cac:ProcurementProject>
      <cbc:Name>${esc(entry.title ?? `Contrato ${entry.n}`)}</cbc:Name>
      <cbc:TypeCode listURI="${CL}/2.08/ContractCode-2.08.gc">2</cbc:TypeCode>
      <cac:RequiredCommodityClassification>
        <cbc:ItemClassificationCode listURI="${CL}/2.04/CPV2008-2.04.gc">${entry.cpv}</cbc:ItemClassificationCode>
      </cac:RequiredCommodityClassification>${extensionXml(entry.extension)}
    </cac:ProcurementProject>
    ${(entry.lots ?? []).map(lotXml).join("")}${entry.results.map(resultXml).join("\n    ")}
    <cac:TenderingProcess>
      <cbc:ContractingSystemCode listURI="${CL}/2.08/ContractingSystemTypeCode-2.08.gc">${entry.framework ? "1" : "0"}</cbc:ContractingSystemCode>
    </cac:TenderingProcess>
  </cac-place-ext:ContractFolderStatus>
</entry>`;
}

/** A page of crafted entries inside the header of a real licitaciones page. */
export function craftedPage(entries: readonly CraftedEntry[]): string {
  return buildPage(splitFeed(TWO_ENTRIES).header, entries.map(craftedEntry));
}
