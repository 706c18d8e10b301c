import type { Buyer, Company, PartyPools } from "../synthetic/parties.ts";
import { buildParties } from "../synthetic/parties.ts";
import { deriveSeed, Rng } from "../synthetic/random.ts";
import { fillPattern, SUBJECTS, type Subject } from "../synthetic/vocabulary.ts";
import { escapeText } from "../synthetic/xml.ts";
import { SYNTHETIC_TED_YEAR } from "./publication-number.ts";

/**
 * Synthetic eForms notices for benchmarks and load tests: Spanish buyers buying IT (the same parties and
 * subjects as the synthetic PLACSP corpus), as contract notices (subtype 16) and contract award notices
 * (subtype 29) with 1–4 lots, frameworks, notices without a winner and two-company consortia, in the
 * structure real notices have (one line, UBL 2.3 with the eForms extension; cf. 00191536-2024).
 *
 * Every notice is on the synthetic id space: publication number `{n}-0000` (no Official Journal has a year
 * 0), so none can be taken for a real one, and ingestion flags them `is_synthetic`. A seed and an index
 * fully determine a notice's bytes, and every value is valid: `normalizeTedNotice` reports no field error.
 */

export interface SyntheticTedNotice {
  /** The member path a daily package would give it: `20240102_001/00000001_0000.xml`. */
  name: string;
  /** Canonical publication number, `1-0000`. */
  publicationNumber: string;
  xml: string;
}

export interface SyntheticTedOptions {
  notices: number;
  /** Default 643, as for the PLACSP corpus. */
  seed?: number;
  /** Notices per OJ S issue (one issue per working day from 2024-01-02); default 100. */
  perIssue?: number;
}

const NS = {
  can: "urn:oasis:names:specification:ubl:schema:xsd:ContractAwardNotice-2",
  cn: "urn:oasis:names:specification:ubl:schema:xsd:ContractNotice-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  efac: "http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1",
  efbc: "http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1",
  efext: "http://data.europa.eu/p27/eforms-ubl-extensions/1",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
};

const FIRST_MONDAY = Date.UTC(2024, 0, 1);
const DAY_MS = 86_400_000;

/** Yields `options.notices` notices, numbered from 1. Parties are built once; each notice draws its own stream. */
export function* syntheticTedNotices(options: SyntheticTedOptions): Generator<SyntheticTedNotice> {
  const seed = options.seed ?? 643;
  const perIssue = options.perIssue ?? 100;
  const pools = buildParties(seed);
  for (let i = 0; i < options.notices; i++) {
    yield syntheticTedNotice(pools, seed, i, perIssue);
  }
}

interface Lot {
  id: string;
  name: string;
  cpv: string;
  estimated: number;
  months: number;
}

interface Award {
  lot: Lot;
  /** Null: closed without a winner (`clos-nw`). */
  winners: Company[] | null;
  value: number;
  bidders: number;
}

function syntheticTedNotice(
  pools: PartyPools,
  seed: number,
  index: number,
  perIssue: number,
): SyntheticTedNotice {
  const rng = new Rng(deriveSeed(seed, "ted-notice", index));
  const number = index + 1;
  const padded = String(number).padStart(8, "0");
  const issue = Math.floor(index / perIssue);
  const day = workingDay(issue);
  const award = rng.chance(0.7);
  const buyer = pools.pickBuyer(rng);
  const subject = rng.weighted(SUBJECTS.map((s): [Subject, number] => [s, s.weight]));
  const title = fillPattern(rng.pick(subject.titles), rng, buyer);
  const framework = rng.chance(0.15);
  const lots = buildLots(rng, subject, buyer, title);
  const awards = award ? lots.map((lot) => buildAward(rng, pools, subject, lot)) : [];
  const ctx: NoticeContext = {
    number: `${padded}-${SYNTHETIC_TED_YEAR}`,
    gazette: `${(issue % 250) + 1}/${SYNTHETIC_TED_YEAR}`,
    day,
    dispatched: shift(day, -rng.int(3, 7)),
    uuid: uuid(rng),
    folder: uuid(rng),
    internalId: `${buyer.province.code}/${2024 + Math.floor(issue / 250)}/${String(rng.int(1, 9999)).padStart(4, "0")}`,
    buyer,
    title,
    subject,
    framework,
    procedure: rng.weighted([
      ["open", 75],
      ["restricted", 10],
      ["neg-w-call", 5],
      ["neg-wo-call", 10],
    ] as const),
    lots,
    awards,
  };
  return {
    name: `${day.replaceAll("-", "")}_${String((issue % 250) + 1).padStart(3, "0")}/${padded}_${SYNTHETIC_TED_YEAR}.xml`,
    publicationNumber: `${number}-${SYNTHETIC_TED_YEAR}`,
    xml: award ? awardNotice(ctx) : contractNotice(ctx, rng),
  };
}

function buildLots(rng: Rng, subject: Subject, buyer: Buyer, title: string): Lot[] {
  const templates = subject.lots;
  const count = templates ? rng.int(1, Math.min(4, templates.length)) : rng.chance(0.7) ? 1 : rng.int(2, 4);
  const total = rng.logNormal(subject.medianBudget * buyer.sizeFactor, 0.8);
  const months = rng.pick([6, 12, 12, 24, 24, 36, 48]);
  return Array.from({ length: count }, (_, i) => {
    const template = templates?.[i];
    return {
      id: `LOT-${String(i + 1).padStart(4, "0")}`,
      name: count === 1 ? title : `${template?.name ?? title} - Lote ${i + 1}`,
      cpv: template?.cpv ?? subject.cpvs[0] ?? "72000000",
      estimated: round2((total / count) * rng.logNormal(1, 0.2)),
      months,
    };
  });
}

function buildAward(rng: Rng, pools: PartyPools, subject: Subject, lot: Lot): Award {
  if (rng.chance(0.08)) {
    return { lot, winners: null, value: 0, bidders: rng.int(0, 3) };
  }
  const first = pools.pickWinner(rng, subject.sector, lot.estimated);
  let winners = [first];
  if (!first.ute && rng.chance(0.05)) {
    const second = pools.pickWinner(rng, subject.sector, 0);
    if (second.nif !== first.nif && !second.ute) {
      winners = [first, second];
    }
  }
  return { lot, winners, value: round2(lot.estimated * (0.65 + rng.next() * 0.35)), bidders: rng.int(1, 9) };
}

interface NoticeContext {
  number: string;
  gazette: string;
  day: string;
  dispatched: string;
  uuid: string;
  folder: string;
  internalId: string;
  buyer: Buyer;
  title: string;
  subject: Subject;
  framework: boolean;
  procedure: string;
  lots: Lot[];
  awards: Award[];
}

function awardNotice(ctx: NoticeContext): string {
  // Organisations: the buyer, then every distinct winner.
  const orgIds = new Map<string, string>();
  const orgs: string[] = [buyerOrganization(ctx.buyer)];
  for (const award of ctx.awards) {
    for (const company of award.winners ?? []) {
      if (!orgIds.has(company.nif)) {
        const id = org(orgIds.size + 2);
        orgIds.set(company.nif, id);
        orgs.push(companyOrganization(company, id));
      }
    }
  }
  const results: string[] = [];
  const tenders: string[] = [];
  const contracts: string[] = [];
  const parties: string[] = [];
  ctx.awards.forEach((award, i) => {
    const n = String(i + 1).padStart(4, "0");
    const lotRef = `<efac:TenderLot><cbc:ID schemeName="Lot">${award.lot.id}</cbc:ID></efac:TenderLot>`;
    const bidders =
      '<efac:ReceivedSubmissionsStatistics><efbc:StatisticsCode listName="received-submission-type">tenders' +
      `</efbc:StatisticsCode><efbc:StatisticsNumeric>${award.bidders}</efbc:StatisticsNumeric>` +
      "</efac:ReceivedSubmissionsStatistics>";
    if (award.winners === null) {
      results.push(
        `<efac:LotResult><cbc:ID schemeName="result">RES-${n}</cbc:ID>` +
          '<cbc:TenderResultCode listName="winner-selection-status">clos-nw</cbc:TenderResultCode>' +
          `${bidders}${lotRef}</efac:LotResult>`,
      );
      return;
    }
    const decided = shift(ctx.dispatched, -(10 + (i % 20)));
    results.push(
      `<efac:LotResult><cbc:ID schemeName="result">RES-${n}</cbc:ID>` +
        '<cbc:TenderResultCode listName="winner-selection-status">selec-w</cbc:TenderResultCode>' +
        `<efac:LotTender><cbc:ID schemeName="tender">TEN-${n}</cbc:ID></efac:LotTender>${bidders}` +
        `<efac:SettledContract><cbc:ID schemeName="contract">CON-${n}</cbc:ID></efac:SettledContract>` +
        `${lotRef}</efac:LotResult>`,
    );
    tenders.push(
      `<efac:LotTender><cbc:ID schemeName="tender">TEN-${n}</cbc:ID>` +
        "<efbc:TenderRankedIndicator>false</efbc:TenderRankedIndicator>" +
        `<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">${amount(award.value)}</cbc:PayableAmount>` +
        `</cac:LegalMonetaryTotal><efac:TenderingParty><cbc:ID schemeName="tendering-party">TPA-${n}</cbc:ID>` +
        `</efac:TenderingParty>${lotRef}</efac:LotTender>`,
    );
    contracts.push(
      `<efac:SettledContract><cbc:ID schemeName="contract">CON-${n}</cbc:ID>` +
        `<cbc:AwardDate>${decided}+01:00</cbc:AwardDate>` +
        `<cbc:IssueDate>${shift(decided, 7)}+01:00</cbc:IssueDate>` +
        `<cbc:Title languageID="SPA">${escapeText(award.lot.name)}</cbc:Title>` +
        `<efac:ContractReference><cbc:ID>${escapeText(ctx.internalId)}-${i + 1}</cbc:ID></efac:ContractReference>` +
        `<efac:LotTender><cbc:ID schemeName="tender">TEN-${n}</cbc:ID></efac:LotTender></efac:SettledContract>`,
    );
    const tenderers = award.winners
      .map(
        (company, k) =>
          `<efac:Tenderer><cbc:ID schemeName="organization">${orgIds.get(company.nif) ?? ""}</cbc:ID>` +
          (award.winners !== null && award.winners.length > 1
            ? `<efbc:GroupLeadIndicator>${k === 0}</efbc:GroupLeadIndicator>`
            : "") +
          "</efac:Tenderer>",
      )
      .join("");
    parties.push(
      `<efac:TenderingParty><cbc:ID schemeName="tendering-party">TPA-${n}</cbc:ID>${tenderers}</efac:TenderingParty>`,
    );
  });
  const total = ctx.awards.reduce((sum, a) => sum + (a.winners === null ? 0 : a.value), 0);
  const noticeResult =
    `<efac:NoticeResult><cbc:TotalAmount currencyID="EUR">${amount(total)}</cbc:TotalAmount>` +
    `${results.join("")}${tenders.join("")}${contracts.join("")}${parties.join("")}</efac:NoticeResult>`;
  return document(ctx, "can", "29", "result", "can-standard", noticeResult, orgs.join(""), "");
}

function contractNotice(ctx: NoticeContext, rng: Rng): string {
  const deadline = shift(ctx.day, rng.int(20, 45));
  const period = `<cac:TenderSubmissionDeadlinePeriod><cbc:EndDate>${deadline}+01:00</cbc:EndDate><cbc:EndTime>14:00:00+01:00</cbc:EndTime></cac:TenderSubmissionDeadlinePeriod>`;
  return document(ctx, "cn", "16", "competition", "cn-standard", "", buyerOrganization(ctx.buyer), period);
}

function document(
  ctx: NoticeContext,
  root: "can" | "cn",
  subtype: string,
  formType: string,
  noticeType: string,
  noticeResult: string,
  organizations: string,
  deadline: string,
): string {
  const rootName = root === "can" ? "ContractAwardNotice" : "ContractNotice";
  const b = ctx.buyer;
  const estimated = round2(ctx.lots.reduce((sum, lot) => sum + lot.estimated, 0));
  const cpvMain = ctx.subject.cpvs[0] ?? "72000000";
  const additional = ctx.subject.cpvs
    .slice(1)
    .map(
      (cpv) =>
        `<cac:AdditionalCommodityClassification><cbc:ItemClassificationCode listName="cpv">${cpv}</cbc:ItemClassificationCode></cac:AdditionalCommodityClassification>`,
    )
    .join("");
  const place = `<cac:RealizedLocation><cac:Address><cbc:CityName>${escapeText(b.city)}</cbc:CityName><cbc:CountrySubentityCode listName="nuts">${b.province.nuts3}</cbc:CountrySubentityCode><cac:Country><cbc:IdentificationCode listName="country">ESP</cbc:IdentificationCode></cac:Country></cac:Address></cac:RealizedLocation>`;
  const lots = ctx.lots
    .map(
      (lot) =>
        `<cac:ProcurementProjectLot><cbc:ID schemeName="Lot">${lot.id}</cbc:ID>` +
        '<cac:TenderingTerms><cbc:FundingProgramCode listName="eu-funded">no-eu-funds</cbc:FundingProgramCode></cac:TenderingTerms>' +
        '<cac:TenderingProcess><cac:ContractingSystem><cbc:ContractingSystemTypeCode listName="framework-agreement">' +
        `${ctx.framework ? "fa-wo-rc" : "none"}</cbc:ContractingSystemTypeCode></cac:ContractingSystem>${deadline}</cac:TenderingProcess>` +
        `<cac:ProcurementProject><cbc:ID schemeName="InternalID">${escapeText(ctx.internalId)}</cbc:ID>` +
        `<cbc:Name languageID="SPA">${escapeText(lot.name)}</cbc:Name>` +
        `<cbc:ProcurementTypeCode listName="contract-nature">${contractNature(ctx.subject)}</cbc:ProcurementTypeCode>` +
        `<cac:RequestedTenderTotal><cbc:EstimatedOverallContractAmount currencyID="EUR">${amount(lot.estimated)}</cbc:EstimatedOverallContractAmount></cac:RequestedTenderTotal>` +
        `<cac:MainCommodityClassification><cbc:ItemClassificationCode listName="cpv">${lot.cpv}</cbc:ItemClassificationCode></cac:MainCommodityClassification>` +
        `${place}<cac:PlannedPeriod><cbc:DurationMeasure unitCode="MONTH">${lot.months}</cbc:DurationMeasure></cac:PlannedPeriod>` +
        "</cac:ProcurementProject></cac:ProcurementProjectLot>",
    )
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8"?><${rootName} xmlns="${NS[root]}" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}" ` +
    `xmlns:efac="${NS.efac}" xmlns:efbc="${NS.efbc}" xmlns:efext="${NS.efext}" xmlns:ext="${NS.ext}">` +
    "<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><efext:EformsExtension>" +
    noticeResult +
    `<efac:NoticeSubType><cbc:SubTypeCode listName="notice-subtype">${subtype}</cbc:SubTypeCode></efac:NoticeSubType>` +
    `<efac:Organizations>${organizations}</efac:Organizations>` +
    `<efac:Publication><efbc:NoticePublicationID schemeName="ojs-notice-id">${ctx.number}</efbc:NoticePublicationID>` +
    `<efbc:GazetteID schemeName="ojs-id">${ctx.gazette}</efbc:GazetteID>` +
    `<efbc:PublicationDate>${ctx.day}+01:00</efbc:PublicationDate></efac:Publication>` +
    "</efext:EformsExtension></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>" +
    "<cbc:UBLVersionID>2.3</cbc:UBLVersionID><cbc:CustomizationID>eforms-sdk-1.10</cbc:CustomizationID>" +
    `<cbc:ID schemeName="notice-id">${ctx.uuid}</cbc:ID><cbc:ContractFolderID>${ctx.folder}</cbc:ContractFolderID>` +
    `<cbc:IssueDate>${ctx.dispatched}+01:00</cbc:IssueDate><cbc:IssueTime>10:00:00+01:00</cbc:IssueTime>` +
    "<cbc:VersionID>01</cbc:VersionID><cbc:RegulatoryDomain>32014L0024</cbc:RegulatoryDomain>" +
    `<cbc:NoticeTypeCode listName="${formType}">${noticeType}</cbc:NoticeTypeCode>` +
    "<cbc:NoticeLanguageCode>SPA</cbc:NoticeLanguageCode>" +
    `<cac:ContractingParty><cbc:BuyerProfileURI>${escapeText(b.website)}</cbc:BuyerProfileURI>` +
    '<cac:ContractingPartyType><cbc:PartyTypeCode listName="buyer-legal-type">ra</cbc:PartyTypeCode></cac:ContractingPartyType>' +
    '<cac:Party><cac:PartyIdentification><cbc:ID schemeName="organization">ORG-0001</cbc:ID></cac:PartyIdentification></cac:Party>' +
    "</cac:ContractingParty>" +
    `<cac:TenderingProcess><cbc:ProcedureCode listName="procurement-procedure-type">${ctx.procedure}</cbc:ProcedureCode></cac:TenderingProcess>` +
    `<cac:ProcurementProject><cbc:ID schemeName="InternalID">${escapeText(ctx.internalId)}</cbc:ID>` +
    `<cbc:Name languageID="SPA">${escapeText(ctx.title)}</cbc:Name>` +
    `<cbc:Description languageID="SPA">${escapeText(`${ctx.title}.`)}</cbc:Description>` +
    `<cbc:ProcurementTypeCode listName="contract-nature">${contractNature(ctx.subject)}</cbc:ProcurementTypeCode>` +
    `<cac:RequestedTenderTotal><cbc:EstimatedOverallContractAmount currencyID="EUR">${amount(estimated)}</cbc:EstimatedOverallContractAmount></cac:RequestedTenderTotal>` +
    `<cac:MainCommodityClassification><cbc:ItemClassificationCode listName="cpv">${cpvMain}</cbc:ItemClassificationCode></cac:MainCommodityClassification>` +
    `${additional}${place}</cac:ProcurementProject>${lots}` +
    (root === "can"
      ? "<cac:TenderResult><cbc:AwardDate>2000-01-01Z</cbc:AwardDate></cac:TenderResult>"
      : "") +
    `</${rootName}>`
  );
}

function buyerOrganization(b: Buyer): string {
  return (
    "<efac:Organization><efac:Company>" +
    `<cbc:WebsiteURI>${escapeText(b.website)}</cbc:WebsiteURI>` +
    '<cac:PartyIdentification><cbc:ID schemeName="organization">ORG-0001</cbc:ID></cac:PartyIdentification>' +
    `<cac:PartyName><cbc:Name languageID="SPA">${escapeText(b.name)}</cbc:Name></cac:PartyName>` +
    address(b.street, b.city, b.postalCode, b.province.nuts3) +
    `<cac:PartyLegalEntity><cbc:CompanyID schemeID="NIF">${b.nif}</cbc:CompanyID></cac:PartyLegalEntity>` +
    `<cac:Contact><cbc:Telephone>${escapeText(b.phone)}</cbc:Telephone>` +
    `<cbc:ElectronicMail>${escapeText(b.email)}</cbc:ElectronicMail></cac:Contact>` +
    "</efac:Company></efac:Organization>"
  );
}

function companyOrganization(c: Company, id: string): string {
  return (
    "<efac:Organization><efac:Company>" +
    `<efbc:CompanySizeCode listName="economic-operator-size">${c.sme ? "small" : "large"}</efbc:CompanySizeCode>` +
    `<cac:PartyIdentification><cbc:ID schemeName="organization">${id}</cbc:ID></cac:PartyIdentification>` +
    `<cac:PartyName><cbc:Name languageID="SPA">${escapeText(c.name)}</cbc:Name></cac:PartyName>` +
    address(null, c.city, c.postalCode, c.province.nuts3) +
    `<cac:PartyLegalEntity><cbc:CompanyID schemeID="NIF">${c.nif}</cbc:CompanyID></cac:PartyLegalEntity>` +
    "</efac:Company></efac:Organization>"
  );
}

function address(street: string | null, city: string, postalCode: string, nuts: string): string {
  return (
    "<cac:PostalAddress>" +
    (street === null ? "" : `<cbc:StreetName>${escapeText(street)}</cbc:StreetName>`) +
    `<cbc:CityName>${escapeText(city)}</cbc:CityName><cbc:PostalZone>${escapeText(postalCode)}</cbc:PostalZone>` +
    `<cbc:CountrySubentityCode listName="nuts">${nuts}</cbc:CountrySubentityCode>` +
    '<cac:Country><cbc:IdentificationCode listName="country">ESP</cbc:IdentificationCode></cac:Country>' +
    "</cac:PostalAddress>"
  );
}

function contractNature(subject: Subject): string {
  return subject.contractType === "1" ? "supplies" : "services";
}

function org(n: number): string {
  return `ORG-${String(n).padStart(4, "0")}`;
}

/** The `issue`-th working day (Monday to Friday) after Monday 2024-01-01, `YYYY-MM-DD`: issue 0 is 2024-01-02. */
function workingDay(issue: number): string {
  const working = issue + 1;
  const ms = FIRST_MONDAY + Math.floor(working / 5) * 7 * DAY_MS + (working % 5) * DAY_MS;
  return new Date(ms).toISOString().slice(0, 10);
}

function shift(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function uuid(rng: Rng): string {
  const hex = [...rng.bytes(16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function amount(value: number): string {
  return value.toFixed(2);
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
