import { describe, expect, it } from "vitest";
import type { NormalizeResult } from "../model.ts";
import { readTedNotice, TedNoticeError } from "./detect.ts";
import { normalizeEformsNotice } from "./eforms.ts";

/**
 * eForms cases the real fixtures do not cover, on a small hand-written award notice. `can()` builds it
 * from named parts so that each test changes only what it is about; the defaults are described next to
 * each part, and expected values refer to them.
 */

const NS = [
  'xmlns="urn:oasis:names:specification:ubl:schema:xsd:ContractAwardNotice-2"',
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"',
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"',
  'xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"',
  'xmlns:efext="http://data.europa.eu/p27/eforms-ubl-extensions/1"',
  'xmlns:efac="http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1"',
  'xmlns:efbc="http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1"',
].join(" ");

const org = (id: string, name: string, companyId: string, country: string): string => `
  <efac:Organization><efac:Company>
    <cac:PartyIdentification><cbc:ID schemeName="organization">${id}</cbc:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name languageID="SPA">${name}</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cbc:CountrySubentityCode listName="nuts">ES300</cbc:CountrySubentityCode>
      <cac:Country>
        <cbc:IdentificationCode listName="country">${country}</cbc:IdentificationCode>
      </cac:Country>
    </cac:PostalAddress>
    <cac:PartyLegalEntity><cbc:CompanyID>${companyId}</cbc:CompanyID></cac:PartyLegalEntity>
  </efac:Company></efac:Organization>`;

const DEFAULTS = {
  publication: `<efac:Publication>
      <efbc:NoticePublicationID schemeName="ojs-notice-id">00123456-2024</efbc:NoticePublicationID>
      <efbc:PublicationDate>2024-05-06+02:00</efbc:PublicationDate>
    </efac:Publication>`,
  // Buyer ORG-0001 (Spanish, valid NIF Q0867012G); winner ORG-0002 (Spanish, valid NIF B12345674)
  organizations:
    org("ORG-0001", "Ayuntamiento de Prueba", "Q0867012G", "ESP") +
    org("ORG-0002", "Gamma Software, S.L.", "B12345674", "ESP"),
  // RES-0001: LOT-0001, selec-w, TEN-0001, 4 tenders, contract CON-0001
  lotResults: `<efac:LotResult><cbc:ID>RES-0001</cbc:ID>
      <cbc:TenderResultCode listName="winner-selection-status">selec-w</cbc:TenderResultCode>
      <efac:LotTender><cbc:ID>TEN-0001</cbc:ID></efac:LotTender>
      <efac:ReceivedSubmissionsStatistics>
        <efbc:StatisticsCode listName="received-submission-type">tenders</efbc:StatisticsCode>
        <efbc:StatisticsNumeric>4</efbc:StatisticsNumeric>
      </efac:ReceivedSubmissionsStatistics>
      <efac:SettledContract><cbc:ID>CON-0001</cbc:ID></efac:SettledContract>
      <efac:TenderLot><cbc:ID schemeName="Lot">LOT-0001</cbc:ID></efac:TenderLot>
    </efac:LotResult>`,
  // TEN-0001: EUR 1000.50, by TPA-0001
  lotTenders: `<efac:LotTender><cbc:ID>TEN-0001</cbc:ID>
      <cac:LegalMonetaryTotal>
        <cbc:PayableAmount currencyID="EUR">1000.50</cbc:PayableAmount>
      </cac:LegalMonetaryTotal>
      <efac:TenderingParty><cbc:ID>TPA-0001</cbc:ID></efac:TenderingParty>
    </efac:LotTender>`,
  // CON-0001: decision date is the 2000-01-01 placeholder, concluded 2024-04-30, covers TEN-0001
  contracts: `<efac:SettledContract><cbc:ID>CON-0001</cbc:ID>
      <cbc:AwardDate>2000-01-01+01:00</cbc:AwardDate><cbc:IssueDate>2024-04-30+02:00</cbc:IssueDate>
      <efac:LotTender><cbc:ID>TEN-0001</cbc:ID></efac:LotTender>
    </efac:SettledContract>`,
  // TPA-0001: one tenderer, ORG-0002
  tenderingParties: `<efac:TenderingParty><cbc:ID>TPA-0001</cbc:ID>
      <efac:Tenderer><cbc:ID>ORG-0002</cbc:ID></efac:Tenderer></efac:TenderingParty>`,
  noticeResultExtra: "",
  names: '<cbc:Name languageID="SPA">Suministro de licencias</cbc:Name>',
  projectExtra: `<cac:RequestedTenderTotal>
      <cbc:EstimatedOverallContractAmount currencyID="EUR">50000</cbc:EstimatedOverallContractAmount>
    </cac:RequestedTenderTotal>
    <cac:MainCommodityClassification><cbc:ItemClassificationCode>48000000</cbc:ItemClassificationCode>
    </cac:MainCommodityClassification>`,
  // LOT-0001: framework-agreement none, tender deadline 2024-03-01 13:00 Madrid (+01:00)
  lotProcess: `<cac:TenderSubmissionDeadlinePeriod>
        <cbc:EndDate>2024-03-01+01:00</cbc:EndDate><cbc:EndTime>13:00:00+01:00</cbc:EndTime>
      </cac:TenderSubmissionDeadlinePeriod>
      <cac:ContractingSystem>
        <cbc:ContractingSystemTypeCode listName="framework-agreement">none</cbc:ContractingSystemTypeCode>
      </cac:ContractingSystem>`,
  lotProject: "",
  extraLots: "",
  rootAwardDate: "2000-01-01Z",
};

type Parts = typeof DEFAULTS;

function can(parts: Partial<Parts> = {}): string {
  const p: Parts = { ...DEFAULTS, ...parts };
  return `<?xml version="1.0" encoding="UTF-8"?>
<ContractAwardNotice ${NS}>
  <ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><efext:EformsExtension>
    <efac:NoticeResult>${p.noticeResultExtra}${p.lotResults}${p.lotTenders}${p.contracts}${p.tenderingParties}
    </efac:NoticeResult>
    <efac:Organizations>${p.organizations}</efac:Organizations>
    ${p.publication}
  </efext:EformsExtension></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>
  <cbc:ID schemeName="notice-id">11111111-2222-3333-4444-555555555555</cbc:ID>
  <cbc:IssueDate>2024-05-02+02:00</cbc:IssueDate>
  <cbc:IssueTime>10:30:00+02:00</cbc:IssueTime>
  <cbc:VersionID>02</cbc:VersionID>
  <cbc:NoticeTypeCode listName="result">can-standard</cbc:NoticeTypeCode>
  <cac:ContractingParty><cac:Party><cac:PartyIdentification><cbc:ID>ORG-0001</cbc:ID>
  </cac:PartyIdentification></cac:Party></cac:ContractingParty>
  <cac:TenderingProcess><cbc:ProcedureCode>open</cbc:ProcedureCode></cac:TenderingProcess>
  <cac:ProcurementProject><cbc:ID>EXP-1/2024</cbc:ID>${p.names}
    <cbc:ProcurementTypeCode>supplies</cbc:ProcurementTypeCode>${p.projectExtra}
  </cac:ProcurementProject>
  <cac:ProcurementProjectLot><cbc:ID schemeName="Lot">LOT-0001</cbc:ID>
    <cac:TenderingProcess>${p.lotProcess}</cac:TenderingProcess>
    <cac:ProcurementProject>${p.lotProject}</cac:ProcurementProject>
  </cac:ProcurementProjectLot>${p.extraLots}
  <cac:TenderResult><cbc:AwardDate>${p.rootAwardDate}</cbc:AwardDate></cac:TenderResult>
</ContractAwardNotice>`;
}

async function* literal(xml: string): AsyncGenerator<string> {
  yield xml;
}

async function normalize(parts: Partial<Parts> = {}): Promise<NormalizeResult> {
  return normalizeEformsNotice(await readTedNotice(literal(can(parts))));
}

describe("eForms hand-written CAN: defaults", () => {
  it("reads the base notice", async () => {
    const { tender, errors } = await normalize();
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "123456-2024",
      folderId: "EXP-1/2024",
      upstreamUpdated: "2024-05-05T22:00:00.000Z",
      publicationDate: "2024-05-06",
      title: "Suministro de licencias",
      cpvMain: "48000000",
      estimatedValue: 50000,
      currency: "EUR",
      // 2024-03-01 13:00 +01:00
      deadline: "2024-03-01T12:00:00.000Z",
      framework: false,
      noticeType: "award-notice",
      procedureType: "open",
      contractType: "supplies",
      // selec-w with a concluded contract (CON-0001 IssueDate)
      status: "signed",
      // no RegulatoryDomain in this notice: no legal_basis key
      sourceCodes: { notice: "can-standard", procedure: "open", contract: "supplies" },
    });
    expect(tender.buyer).toMatchObject({ name: "Ayuntamiento de Prueba", nif: "Q0867012G", country: "ES" });
    expect(tender.awards).toEqual([
      {
        lot: "LOT-0001",
        resultCode: "selec-w",
        // CON-0001 AwardDate is the placeholder: its IssueDate 2024-04-30 is used
        awardDate: "2024-04-30",
        winner: {
          name: "Gamma Software, S.L.",
          nif: "B12345674",
          rawId: "B12345674",
          idScheme: null,
          country: "ES",
          isJointVenture: false,
          members: [],
        },
        value: 1000.5,
        valuePayable: null,
        currency: "EUR",
        biddersCount: 4,
        framework: false,
        valueIsCeiling: false,
        durationMonths: null,
        startDate: null,
        startDateKind: null,
        endDate: null,
        // no ContractExtension
        extensionText: null,
        extensionMonths: null,
        extensionEndDate: null,
        contractSigned: true,
        cpv: "48000000",
      },
    ]);
  });
});

describe("language pick (Spanish, then English, then the first)", () => {
  it.each([
    [
      '<cbc:Name languageID="FRA">Licences</cbc:Name><cbc:Name languageID="ENG">Licences EN</cbc:Name>' +
        '<cbc:Name languageID="SPA">Licencias</cbc:Name>',
      "Licencias",
    ],
    [
      '<cbc:Name languageID="FRA">Licences</cbc:Name><cbc:Name languageID="ENG">Software licences</cbc:Name>',
      "Software licences",
    ],
    [
      '<cbc:Name languageID="NLD">Licenties</cbc:Name><cbc:Name languageID="FRA">Licences</cbc:Name>',
      "Licenties",
    ],
    // an empty Spanish variant does not count
    ['<cbc:Name languageID="SPA"> </cbc:Name><cbc:Name languageID="DEU">Lizenzen</cbc:Name>', "Lizenzen"],
  ])("%s -> %s", async (names, expected) => {
    const { tender } = await normalize({ names });
    expect(tender.title).toBe(expected);
  });
});

describe("the 2000-01-01 placeholder", () => {
  it("is ignored on the contract and at the root, without an error", async () => {
    const { tender, errors } = await normalize({
      contracts: `<efac:SettledContract><cbc:ID>CON-0001</cbc:ID><cbc:AwardDate>2000-01-01Z</cbc:AwardDate>
        <efac:LotTender><cbc:ID>TEN-0001</cbc:ID></efac:LotTender></efac:SettledContract>`,
    });
    expect(errors).toEqual([]);
    expect(tender.awards[0]).toMatchObject({ awardDate: null, contractSigned: false });
  });

  it("lets a real root TenderResult/AwardDate through as the last resort", async () => {
    const { tender } = await normalize({ contracts: "", rootAwardDate: "2024-04-15+02:00" });
    expect(tender.awards[0]).toMatchObject({ awardDate: "2024-04-15", contractSigned: false });
  });
});

describe("bidders count", () => {
  const statistic = (code: string | null, value: string): string =>
    `<efac:ReceivedSubmissionsStatistics>${code === null ? "" : code}
      <efbc:StatisticsNumeric>${value}</efbc:StatisticsNumeric></efac:ReceivedSubmissionsStatistics>`;
  const withStatistics = (stats: string): string =>
    DEFAULTS.lotResults.replace(
      /<efac:ReceivedSubmissionsStatistics>[\s\S]*<\/efac:ReceivedSubmissionsStatistics>/,
      stats,
    );

  it("counts `tenders` whatever its listName says", async () => {
    const stats =
      statistic('<efbc:StatisticsCode listName="received-submission-type">t-sme</efbc:StatisticsCode>', "2") +
      statistic('<efbc:StatisticsCode listName="review-decision-type">tenders</efbc:StatisticsCode>', "5");
    const { tender } = await normalize({ lotResults: withStatistics(stats) });
    expect(tender.awards[0]?.biddersCount).toBe(5);
  });

  it("does not take t-esubm or an uncoded count for it", async () => {
    const stats =
      statistic(
        '<efbc:StatisticsCode listName="received-submission-type">t-esubm</efbc:StatisticsCode>',
        "3",
      ) + statistic(null, "6");
    const { tender, errors } = await normalize({ lotResults: withStatistics(stats) });
    expect(tender.awards[0]?.biddersCount).toBeNull();
    expect(errors).toEqual([]);
  });
});

describe("winners", () => {
  it("makes one group of a tendering party with several tenderers, lead first", async () => {
    const { tender, errors } = await normalize({
      organizations:
        DEFAULTS.organizations +
        org("ORG-0003", "Delta Consulting GmbH", "DE129273398", "DEU") +
        org("ORG-0004", "Epsilon Datos, S.A.", "A58818501", "ESP"),
      tenderingParties: `<efac:TenderingParty><cbc:ID>TPA-0001</cbc:ID>
        <efac:Tenderer><cbc:ID>ORG-0003</cbc:ID></efac:Tenderer>
        <efac:Tenderer><cbc:ID>ORG-0004</cbc:ID><efbc:GroupLeadIndicator>true</efbc:GroupLeadIndicator>
        </efac:Tenderer></efac:TenderingParty>`,
    });
    expect(errors).toEqual([]);
    expect(tender.awards[0]?.winner).toEqual({
      // no TenderingParty/cbc:Name: members joined, the lead (ORG-0004) first
      name: "Epsilon Datos, S.A., Delta Consulting GmbH",
      nif: null,
      rawId: null,
      idScheme: null,
      country: "ES",
      isJointVenture: true,
      members: [
        { name: "Epsilon Datos, S.A.", nif: "A58818501", rawId: "A58818501", idScheme: null, country: "ES" },
        // a German VAT id is never a NIF
        { name: "Delta Consulting GmbH", nif: null, rawId: "DE129273398", idScheme: null, country: "DE" },
      ],
    });
  });

  it("uses the published group name when there is one", async () => {
    const { tender } = await normalize({
      organizations: DEFAULTS.organizations + org("ORG-0003", "Delta Consulting GmbH", "DE129273398", "DEU"),
      tenderingParties: `<efac:TenderingParty><cbc:ID>TPA-0001</cbc:ID><cbc:Name>UTE Gamma-Delta</cbc:Name>
        <efac:Tenderer><cbc:ID>ORG-0002</cbc:ID></efac:Tenderer>
        <efac:Tenderer><cbc:ID>ORG-0003</cbc:ID></efac:Tenderer></efac:TenderingParty>`,
    });
    expect(tender.awards[0]?.winner).toMatchObject({ name: "UTE Gamma-Delta", isJointVenture: true });
    expect(tender.awards[0]?.winner?.members.map((m) => m.name)).toEqual([
      "Gamma Software, S.L.",
      "Delta Consulting GmbH",
    ]);
  });

  it("flags a single winner whose name says UTE", async () => {
    const { tender } = await normalize({
      organizations:
        org("ORG-0001", "Ayuntamiento de Prueba", "Q0867012G", "ESP") +
        org("ORG-0002", "UTE Gamma Delta", "junk id", "ESP"),
    });
    expect(tender.awards[0]?.winner).toMatchObject({
      name: "UTE Gamma Delta",
      nif: null,
      rawId: "junk id",
      isJointVenture: true,
      members: [],
    });
  });

  it("keeps an award whose tendering party has no tenderer, with no winner and an error", async () => {
    const { tender, errors } = await normalize({
      tenderingParties: "<efac:TenderingParty><cbc:ID>TPA-0001</cbc:ID></efac:TenderingParty>",
    });
    expect(tender.awards[0]).toMatchObject({ winner: null, value: 1000.5, resultCode: "selec-w" });
    expect(errors).toEqual([
      { field: "results[RES-0001].winner", reason: "tendering party has no tenderer; winner unknown" },
    ]);
  });

  it("gives one award per winning tender of a multi-supplier lot", async () => {
    const { tender } = await normalize({
      lotResults: DEFAULTS.lotResults.replace(
        "<efac:LotTender><cbc:ID>TEN-0001</cbc:ID></efac:LotTender>",
        "<efac:LotTender><cbc:ID>TEN-0001</cbc:ID></efac:LotTender>" +
          "<efac:LotTender><cbc:ID>TEN-0002</cbc:ID></efac:LotTender>",
      ),
      lotTenders: `${DEFAULTS.lotTenders}<efac:LotTender><cbc:ID>TEN-0002</cbc:ID>
        <cac:LegalMonetaryTotal>
          <cbc:PayableAmount currencyID="EUR">990</cbc:PayableAmount>
        </cac:LegalMonetaryTotal>
        <efac:TenderingParty><cbc:ID>TPA-0002</cbc:ID></efac:TenderingParty></efac:LotTender>`,
      tenderingParties: `${DEFAULTS.tenderingParties}<efac:TenderingParty><cbc:ID>TPA-0002</cbc:ID>
        <efac:Tenderer><cbc:ID>ORG-0001</cbc:ID></efac:Tenderer></efac:TenderingParty>`,
    });
    expect(tender.awards.map((a) => [a.lot, a.winner?.name, a.value, a.biddersCount])).toEqual([
      ["LOT-0001", "Gamma Software, S.L.", 1000.5, 4],
      ["LOT-0001", "Ayuntamiento de Prueba", 990, 4],
    ]);
    // CON-0001 lists TEN-0001 only (BT-3202): it is not TEN-0002's contract
    expect(tender.awards.map((a) => [a.awardDate, a.contractSigned])).toEqual([
      ["2024-04-30", true],
      [null, false],
    ]);
  });

  it("accepts a foreign party's person-shaped id as NIF only with the ES prefix", async () => {
    const { tender } = await normalize({
      organizations:
        org("ORG-0001", "Ayuntamiento de Prueba", "Q0867012G", "ESP") +
        // 12345678Z passes the DNI check, but a French company's id is not a Spanish NIF
        org("ORG-0002", "Zeta SAS", "12345678Z", "FRA"),
    });
    expect(tender.awards[0]?.winner).toMatchObject({ nif: null, rawId: "12345678Z", country: "FR" });
    const prefixed = await normalize({
      organizations:
        org("ORG-0001", "Ayuntamiento de Prueba", "Q0867012G", "ESP") +
        org("ORG-0002", "Zeta SAS", "ESB12345674", "FRA"),
    });
    expect(prefixed.tender.awards[0]?.winner).toMatchObject({ nif: "B12345674", rawId: "ESB12345674" });
  });
});

describe("framework values", () => {
  it("uses the lot's maximum value (BT-709) as a ceiling", async () => {
    const { tender } = await normalize({
      lotResults: DEFAULTS.lotResults.replace(
        "<efac:ReceivedSubmissionsStatistics>",
        `<efac:FrameworkAgreementValues>
          <cbc:MaximumValueAmount currencyID="EUR">250000</cbc:MaximumValueAmount>
        </efac:FrameworkAgreementValues><efac:ReceivedSubmissionsStatistics>`,
      ),
    });
    expect(tender.framework).toBe(true);
    expect(tender.awards[0]).toMatchObject({
      framework: true,
      value: 250000,
      currency: "EUR",
      valueIsCeiling: true,
    });
  });

  it("flags a framework tender value when the lot is a framework", async () => {
    const { tender } = await normalize({
      lotProcess: DEFAULTS.lotProcess.replace(">none<", ">fa-w-rc<"),
    });
    expect(tender.framework).toBe(true);
    expect(tender.awards[0]).toMatchObject({ framework: true, value: 1000.5, valueIsCeiling: true });
  });
});

describe("malformed values", () => {
  it("become null with a FieldError each", async () => {
    const { tender, errors } = await normalize({
      projectExtra: `<cac:RequestedTenderTotal>
          <cbc:EstimatedOverallContractAmount currencyID="EUR">50.000,00</cbc:EstimatedOverallContractAmount>
        </cac:RequestedTenderTotal>
        <cac:MainCommodityClassification><cbc:ItemClassificationCode>4800000X</cbc:ItemClassificationCode>
        </cac:MainCommodityClassification>`,
      lotProcess: `<cac:TenderSubmissionDeadlinePeriod><cbc:EndDate>2024-02-30+01:00</cbc:EndDate>
        </cac:TenderSubmissionDeadlinePeriod>`,
      lotTenders: DEFAULTS.lotTenders.replace('currencyID="EUR">1000.50', 'currencyID="euro">1000.50'),
      organizations: DEFAULTS.organizations.replace(
        '<cbc:IdentificationCode listName="country">ESP',
        "<cbc:IdentificationCode>XXX",
      ),
    });
    expect(tender).toMatchObject({ estimatedValue: null, currency: null, cpvMain: null, deadline: null });
    expect(tender.buyer?.country).toBeNull();
    expect(tender.awards[0]).toMatchObject({ value: 1000.5, currency: null });
    expect(errors).toEqual([
      { field: "project.cpv[0]", reason: 'not a CPV code: "4800000X"' },
      { field: "lots[LOT-0001].deadline", reason: 'not a date and time: "2024-02-30+01:00"' },
      { field: "estimatedValue", reason: 'not a decimal amount: "50.000,00"' },
      { field: "results[RES-0001].currency", reason: 'not an ISO 4217 currency code: "euro"' },
      { field: "buyer.country", reason: 'not an ISO 3166 alpha-3 country code: "XXX"' },
    ]);
  });

  it("unknown codes keep their raw value in sourceCodes, the common field null and a FieldError", async () => {
    const xml = can()
      .replace(
        '<cbc:NoticeTypeCode listName="result">can-standard',
        '<cbc:NoticeTypeCode listName="result">can-new',
      )
      .replace("<cbc:ProcedureCode>open", "<cbc:ProcedureCode>lottery")
      .replace("<cbc:ProcurementTypeCode>supplies", "<cbc:ProcurementTypeCode>combined");
    const { tender, errors } = normalizeEformsNotice(await readTedNotice(literal(xml)));
    expect(tender).toMatchObject({
      noticeType: null,
      procedureType: null,
      contractType: null,
      // without a known notice type, its form (and so the status) is not known either
      status: null,
      sourceCodes: { notice: "can-new", procedure: "lottery", contract: "combined" },
    });
    expect(errors).toEqual([
      { field: "noticeType", reason: 'not a code of the eForms notice-type list: "can-new"' },
      { field: "contractType", reason: 'not a code of the eForms contract-nature list: "combined"' },
      {
        field: "procedureType",
        reason: 'not a code of the eForms procurement-procedure-type list: "lottery"',
      },
    ]);
    // the rest of the notice is read as before
    expect(tender.awards).toHaveLength(1);
  });

  it("reports a malformed publication number and keys the notice by its id", async () => {
    const { tender, errors } = await normalize({
      publication: DEFAULTS.publication.replace("00123456-2024", "2024-ABC"),
    });
    expect(tender.sourceRef).toBe("11111111-2222-3333-4444-555555555555-02");
    expect(tender.url).toBeNull();
    expect(errors).toEqual([{ field: "sourceRef", reason: 'not a TED publication number: "2024-ABC"' }]);
  });

  it("versions by the dispatch date and time when there is no publication date", async () => {
    const { tender } = await normalize({ publication: "" });
    // cbc:IssueDate 2024-05-02+02:00 + cbc:IssueTime 10:30:00+02:00
    expect(tender.upstreamUpdated).toBe("2024-05-02T08:30:00.000Z");
    expect(tender.publicationDate).toBeNull();
  });

  it("rejects a notice with no key at all", async () => {
    const xml = can({ publication: "" }).replace(/<cbc:ID schemeName="notice-id">[^<]*<\/cbc:ID>/, "");
    await expect(readTedNotice(literal(xml)).then(normalizeEformsNotice)).rejects.toThrow(TedNoticeError);
  });
});

describe("cross-reference to PLACSP", () => {
  it("is the PLACSP procedure deeplink when the notice links one", async () => {
    const link =
      "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&amp;idEvl=AbC%2B12%3D%3D";
    const { tender } = await normalize({
      lotProcess: `${DEFAULTS.lotProcess}<cac:CallForTendersDocumentReference><cbc:ID>Pliegos</cbc:ID>
        <cac:Attachment>
          <cac:ExternalReference><cbc:URI>${link}</cbc:URI></cac:ExternalReference>
        </cac:Attachment>
        </cac:CallForTendersDocumentReference>`,
    });
    expect(tender.crossRef).toBe(
      "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=AbC%2B12%3D%3D",
    );
  });

  it("ignores a link quoted inside a text", async () => {
    const { tender } = await normalize({
      names:
        '<cbc:Name languageID="SPA">Ver https://contrataciondelestado.es/wps/poc' +
        "?uri=deeplink:detalle_licitacion" +
        "&amp;idEvl=XYZ para más información</cbc:Name>",
    });
    expect(tender.crossRef).toBeNull();
  });
});

describe("contract extensions (BT-54, BT-57, BT-58)", () => {
  const extension = (body: string): string => `<cac:ContractExtension>${body}</cac:ContractExtension>`;

  it("reads the structured renewal period into months and end date, beside the joined text", async () => {
    const { tender, errors } = await normalize({
      lotProject:
        extension(`<cbc:OptionsDescription languageID="SPA">Ampliación del 20 %</cbc:OptionsDescription>
        <cbc:MaximumNumberNumeric>2</cbc:MaximumNumberNumeric>
        <cac:Renewal><cac:Period>
          <cbc:DurationMeasure unitCode="YEAR">2</cbc:DurationMeasure>
          <cbc:EndDate>2028-12-31+01:00</cbc:EndDate>
          <cbc:Description languageID="SPA">Prórrogas   anuales
            hasta 2028</cbc:Description>
        </cac:Period></cac:Renewal>`),
    });
    expect(errors).toEqual([]);
    expect(tender.awards[0]).toMatchObject({
      // options, renewal description (whitespace collapsed), then the count; one per line
      extensionText: "Ampliación del 20 %\nPrórrogas anuales hasta 2028\nRenewals: at most 2",
      // 2 YEAR = 24 months: the renewal period as published, not multiplied by the count
      extensionMonths: 24,
      extensionEndDate: "2028-12-31",
    });
  });

  it("reads both descriptions in one language they share, Spanish or English first", async () => {
    const options =
      '<cbc:OptionsDescription languageID="FRA">Options FR</cbc:OptionsDescription>' +
      '<cbc:OptionsDescription languageID="ENG">Options EN</cbc:OptionsDescription>';
    const renewal = (descriptions: string): string =>
      `<cac:Renewal><cac:Period>${descriptions}</cac:Period></cac:Renewal>`;
    // ENG is preferred, but the renewal is not published in it: FRA is the one language both have
    const shared = await normalize({
      lotProject: extension(
        options +
          renewal(
            '<cbc:Description languageID="DEU">Verlängerung</cbc:Description>' +
              '<cbc:Description languageID="FRA">Reconduction</cbc:Description>',
          ),
      ),
    });
    expect(shared.tender.awards[0]?.extensionText).toBe("Options FR\nReconduction");
    // both in ENG and FRA: ENG
    const preferred = await normalize({
      lotProject: extension(
        options +
          renewal(
            '<cbc:Description languageID="FRA">Reconduction</cbc:Description>' +
              '<cbc:Description languageID="ENG">Renewal</cbc:Description>',
          ),
      ),
    });
    expect(preferred.tender.awards[0]?.extensionText).toBe("Options EN\nRenewal");
    // no language in common: each text's own pick (ENG for the options, the first for the renewal)
    const none = await normalize({
      lotProject: extension(
        options + renewal('<cbc:Description languageID="DEU">Verlängerung</cbc:Description>'),
      ),
    });
    expect(none.tender.awards[0]?.extensionText).toBe("Options EN\nVerlängerung");
  });

  it("gives a renewal maximum of 0 no text, and a result without winner no extensions", async () => {
    const zero = await normalize({
      lotProject: extension("<cbc:MaximumNumberNumeric>0</cbc:MaximumNumberNumeric>"),
    });
    expect(zero.tender.awards[0]).toMatchObject({
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
    });
    const noWinner = await normalize({
      lotProject: extension(`<cbc:MaximumNumberNumeric>3</cbc:MaximumNumberNumeric>
        <cac:Renewal><cac:Period><cbc:DurationMeasure unitCode="MONTH">12</cbc:DurationMeasure>
        </cac:Period></cac:Renewal>`),
      lotResults: DEFAULTS.lotResults.replace(">selec-w<", ">clos-nw<"),
    });
    expect(noWinner.tender.awards).toHaveLength(1);
    expect(noWinner.tender.awards[0]).toMatchObject({
      winner: null,
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
    });
  });

  it("reports an unreadable renewal period or maximum and leaves it null", async () => {
    const { tender, errors } = await normalize({
      lotProject: extension(`<cbc:MaximumNumberNumeric>two</cbc:MaximumNumberNumeric>
        <cac:Renewal><cac:Period><cbc:DurationMeasure unitCode="HUR">12</cbc:DurationMeasure>
        <cbc:EndDate>2028-02-30</cbc:EndDate></cac:Period></cac:Renewal>`),
    });
    expect(tender.awards[0]).toMatchObject({
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
    });
    expect(errors).toEqual([
      { field: "lots[LOT-0001].extension.maxRenewals", reason: 'not a non-negative integer: "two"' },
      { field: "lots[LOT-0001].extension.months", reason: 'unknown duration unit HUR: "12"' },
      { field: "lots[LOT-0001].extension.endDate", reason: 'not a calendar date: "2028-02-30"' },
    ]);
  });
});

describe("status of an award notice, from its lot results", () => {
  /** The default result (RES-0001, LOT-0001) closed without winner, with this reason (BT-144). */
  const closed = (reason: string | null): string =>
    `<efac:LotResult><cbc:ID>RES-0001</cbc:ID>
      <cbc:TenderResultCode listName="winner-selection-status">clos-nw</cbc:TenderResultCode>
      ${reason === null ? "" : `<efac:DecisionReason><efbc:DecisionReasonCode>${reason}</efbc:DecisionReasonCode></efac:DecisionReason>`}
      <efac:TenderLot><cbc:ID schemeName="Lot">LOT-0001</cbc:ID></efac:TenderLot>
    </efac:LotResult>`;
  const noWinner = { lotTenders: "", contracts: "", tenderingParties: "" };

  it("a winner without a concluded contract is awarded", async () => {
    const { tender } = await normalize({
      contracts: DEFAULTS.contracts.replace(/<cbc:IssueDate>[^<]*<\/cbc:IssueDate>/, ""),
    });
    expect(tender.status).toBe("awarded");
  });

  it.each([
    // no (valid) tender: deserted, as a PLACSP "desierto"
    ["no-rece", "deserted"],
    ["all-rej", "deserted"],
    // the buyer's or a review body's decision: withdrawn, as a PLACSP "desistimiento"
    ["chan-need", "cancelled"],
    ["rev-body", "cancelled"],
    // "other" says neither
    ["other", null],
  ])("closed without winner, reason %s → %s", async (reason, status) => {
    const { tender, errors } = await normalize({ ...noWinner, lotResults: closed(reason) });
    expect(errors).toEqual([]);
    expect(tender.status).toBe(status);
  });

  it("a deserted lot beside a withdrawn one is cancelled; a missing reason leaves it open", async () => {
    const second = closed("no-rece").replaceAll("RES-0001", "RES-0002").replace("LOT-0001", "LOT-0002");
    expect((await normalize({ ...noWinner, lotResults: closed("ins-fund") + second })).tender.status).toBe(
      "cancelled",
    );
    expect((await normalize({ ...noWinner, lotResults: closed(null) + second })).tender.status).toBeNull();
  });

  it("an unknown reason is reported and leaves the status null", async () => {
    const { tender, errors } = await normalize({ ...noWinner, lotResults: closed("bored") });
    expect(tender.status).toBeNull();
    expect(errors).toEqual([
      {
        field: "lotResults[0].noAwardReason",
        reason: 'not a code of the eForms non-award-justification list: "bored"',
      },
    ]);
  });

  it("a lot still open (open-nw) is in evaluation", async () => {
    const { tender } = await normalize({
      ...noWinner,
      lotResults: closed(null).replace(">clos-nw<", ">open-nw<"),
    });
    expect(tender.status).toBe("evaluation");
  });
});
