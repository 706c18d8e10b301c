import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import type { FieldError, NormalizedAward, NormalizedWinner, NormalizeResult } from "../model.ts";
import { readTedNotice } from "./detect.ts";
import { normalizeEformsNotice } from "./eforms.ts";
import { readLots } from "./eforms-lots.ts";

/**
 * The eForms fixtures, field by field. Every expected value was read by hand from the XML; the comment next
 * to it says where (`EXT` = the root's efext:EformsExtension, `NR` = EXT/efac:NoticeResult, `LOT-n` = the
 * cac:ProcurementProjectLot with that cbc:ID).
 */

const FIXTURES = `${SHARED_DIR}fixtures/ted/`;

async function normalizeFixture(file: string): Promise<NormalizeResult> {
  return normalizeEformsNotice(await readTedNotice(createReadStream(`${FIXTURES}${file}`)));
}

function award(awards: readonly NormalizedAward[], index: number): NormalizedAward {
  const found = awards[index];
  if (found === undefined) {
    throw new Error(`no award at index ${index}`);
  }
  return found;
}

/** A single (non-group) winner with no NIF, as every non-Spanish winner here is. */
function foreignWinner(name: string, rawId: string, country: string, idScheme: string | null = null) {
  return { name, nif: null, rawId, idScheme, country, isJointVenture: false, members: [] };
}

describe("eForms CAN 00611835-2024: BEL ICT framework, 6 lots, 2 winners, lot 5 without winner", async () => {
  const { tender, errors } = await normalizeFixture("eforms-can-00611835-2024-BEL-ict-framework.xml");
  // ORG-0003 (CompanyID 0461145522) wins lots 1, 4, 6 via TPA-0001;
  // ORG-0004 (CompanyID 0898973234) wins lots 2, 3 via TPA-0002.
  const dvit: NormalizedWinner = foreignWinner("DVIT", "0461145522", "BE");
  const threeD: NormalizedWinner = foreignWinner("3D-ICT", "0898973234", "BE");

  it("reads the notice without errors", () => {
    expect(errors).toEqual([]);
  });

  it("reads the procedure", () => {
    expect(tender).toMatchObject({
      source: "ted",
      // EXT/efac:Publication/efbc:NoticePublicationID 00611835-2024
      sourceRef: "611835-2024",
      feed: null,
      // cac:ProcurementProject/cbc:ID (BT-22)
      folderId: "CODSMC-2024-001",
      // efbc:PublicationDate 2024-10-10+02:00, at 00:00 that offset
      upstreamUpdated: "2024-10-09T22:00:00.000Z",
      // cbc:NoticeTypeCode can-standard (form type result)
      noticeType: "award-notice",
      publicationDate: "2024-10-10",
      // cbc:Name FRA (first; no SPA or ENG), trailing space trimmed
      title:
        "Cahier spécial des charges relatif à des services ICT : Accord cadre pour 4 services de médiation",
      // procedure MainCommodityClassification 72500000; lots 72500000, 48900000, 32412110, 72415000,
      // 72212000, 48820000 (LOT-0001…LOT-0006)
      cpvMain: "72500000",
      cpvAll: ["72500000", "48900000", "32412110", "72415000", "72212000", "48820000"],
      // procedure cbc:ProcurementTypeCode; TenderingProcess/cbc:ProcedureCode
      contractType: "services",
      procedureType: "open",
      sourceCodes: {
        notice: "can-standard",
        procedure: "open",
        contract: "services",
        legal_basis: "32014L0024",
      },
      // a CAN: no TenderSubmissionDeadlinePeriod, no EstimatedOverallContractAmount
      deadline: null,
      estimatedValue: null,
      currency: null,
      // no procedure RealizedLocation; LOT-0001 RealizedLocation CountrySubentityCode BE100
      nuts: "BE100",
      url: "https://ted.europa.eu/en/notice/-/detail/611835-2024",
      // five lots selec-w with concluded contracts (CON-0001/CON-0002 IssueDate), lot 5 clos-nw: signed
      status: "signed",
      // every lot: ContractingSystemTypeCode listName=framework-agreement fa-w-rc
      framework: true,
      // every lot PlannedPeriod is DescriptionCode UNLIMITED
      durationMonths: null,
      crossRef: null,
    });
    // procedure cbc:Description, FRA variant (first)
    expect(tender.description).toMatch(
      /^Le présent marché porte sur la fourniture d’un support ICT, .* 6 lots\.$/,
    );
  });

  it("takes the first of the four buyers, not the eSender", () => {
    // cac:ContractingParty[1] → ORG-0001 (ORG-0002 is its ted-esen ServiceProviderParty)
    expect(tender.buyer).toEqual({
      // PartyName: FRA first, then NLD "Consumentenombudsdienst"
      name: "Service de Médiation pour le Consommateur",
      nif: null,
      // CompanyID 0553755479_1899 (Belgian, kept as published)
      rawId: "0553755479_1899",
      idScheme: null,
      // PostalAddress Country BEL, CountrySubentityCode BE100
      country: "BE",
      dir3: [],
      platformId: null,
      nuts: "BE100",
      // ContractingPartyType/PartyTypeCode listName=buyer-legal-type
      orgType: "cga",
    });
  });

  it("gives one award per lot result, in NR order", () => {
    // NR/efac:LotResult RES-0001…RES-0006 → LOT-0001…LOT-0006
    expect(tender.awards.map((a) => [a.lot, a.resultCode])).toEqual([
      ["LOT-0001", "selec-w"],
      ["LOT-0002", "selec-w"],
      ["LOT-0003", "selec-w"],
      ["LOT-0004", "selec-w"],
      ["LOT-0005", "clos-nw"],
      ["LOT-0006", "selec-w"],
    ]);
  });

  it("follows LotResult → LotTender → TenderingParty → Tenderer → Organization", () => {
    expect(award(tender.awards, 0)).toEqual({
      lot: "LOT-0001",
      resultCode: "selec-w",
      // RES-0001 → CON-0001: IssueDate 2024-10-07+02:00 (no AwardDate); root TenderResult is 2000-01-01
      awardDate: "2024-10-07",
      // RES-0001 → TEN-0001 → TPA-0001 → ORG-0003
      winner: dvit,
      // TEN-0001 LegalMonetaryTotal/PayableAmount EUR 4535.88 (a framework unit price, flagged)
      value: 4535.88,
      valuePayable: null,
      currency: "EUR",
      // StatisticsNumeric 3 has no StatisticsCode: not the `tenders` statistic
      biddersCount: null,
      framework: true,
      valueIsCeiling: true,
      durationMonths: null,
      startDate: null,
      startDateKind: null,
      endDate: null,
      // no ContractExtension
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
      // CON-0001 has an IssueDate (BT-145)
      contractSigned: true,
      // LOT-0001 MainCommodityClassification
      cpv: "72500000",
    });
    // RES-0002 → TEN-0004 (447.97) → TPA-0002 → ORG-0004; CON-0002 IssueDate 2024-10-07
    expect(award(tender.awards, 1)).toMatchObject({
      winner: threeD,
      value: 447.97,
      awardDate: "2024-10-07",
      cpv: "48900000",
    });
    // RES-0003 → TEN-0005 (1209) → TPA-0002 → ORG-0004
    expect(award(tender.awards, 2)).toMatchObject({ winner: threeD, value: 1209, cpv: "32412110" });
    // RES-0004 → TEN-0002 (714) → TPA-0001 → ORG-0003; CON-0001 covers TEN-0001, TEN-0002, TEN-0003
    expect(award(tender.awards, 3)).toMatchObject({
      winner: dvit,
      value: 714,
      awardDate: "2024-10-07",
      cpv: "72415000",
    });
    // RES-0006 → TEN-0003 (767.3) → TPA-0001 → ORG-0003
    expect(award(tender.awards, 5)).toMatchObject({ winner: dvit, value: 767.3, cpv: "48820000" });
  });

  it("keeps the lot without a winner, with no winner, value or dates", () => {
    // RES-0005: clos-nw, DecisionReasonCode one-admis, Higher/LowerTenderAmount 16050 (not an award value)
    expect(award(tender.awards, 4)).toEqual({
      lot: "LOT-0005",
      resultCode: "clos-nw",
      // no SettledContract; root TenderResult/AwardDate is the 2000-01-01+01:00 placeholder
      awardDate: null,
      winner: null,
      value: null,
      valuePayable: null,
      currency: null,
      biddersCount: null,
      framework: true,
      valueIsCeiling: false,
      durationMonths: null,
      startDate: null,
      startDateKind: null,
      endDate: null,
      // no winner: no extensions
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
      contractSigned: false,
      cpv: "72212000",
    });
  });
});

describe("eForms CAN 00191536-2024: NLD single lot", async () => {
  const { tender, errors } = await normalizeFixture("eforms-can-00191536-2024-NLD-single-lot.xml");

  it("reads the procedure", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "191536-2024",
      folderId: "2023053171",
      // PublicationDate 2024-04-02Z
      upstreamUpdated: "2024-04-02T00:00:00.000Z",
      publicationDate: "2024-04-02",
      noticeType: "award-notice",
      title:
        "Reparatie vloeren en optimaliseren technische installatie van het hoofdkantoor van Waterschap " +
        "Rivierenland te Tiel (Tender 219964 NX3)",
      // Main 45000000; Additional 45200000, 45300000, 45400000, 50700000 (the lot repeats them)
      cpvMain: "45000000",
      cpvAll: ["45000000", "45200000", "45300000", "45400000", "50700000"],
      contractType: "works",
      procedureType: "open",
      sourceCodes: {
        notice: "can-standard",
        procedure: "open",
        contract: "works",
        legal_basis: "32014L0024",
      },
      // selec-w, but CON-0001 has only an AwardDate (BT-1451), no conclusion date: awarded, not signed
      status: "awarded",
      deadline: null,
      // RequestedTenderTotal/EstimatedOverallContractAmount currencyID=EUR 7000000
      estimatedValue: 7000000,
      currency: "EUR",
      // RealizedLocation has Region anyw-cou and Country NLD only: NUTS-0 of the country
      nuts: "NL",
      url: "https://ted.europa.eu/en/notice/-/detail/191536-2024",
      // LOT-0000 framework-agreement none
      framework: false,
      durationMonths: null,
      crossRef: null,
    });
    expect(tender.description).toMatch(/^De opdracht omvat het versterken van de vloer- en dakconstructie,/);
    expect(tender.description).toMatch(/ARW2016 hoofdstuk 2 van toepassing\.$/);
  });

  it("reads the buyer", () => {
    expect(tender.buyer).toEqual({
      // ORG-0001
      name: "Waterschap Rivierenland",
      nif: null,
      // CompanyID schemeID="002" 30281419
      rawId: "30281419",
      idScheme: "002",
      country: "NL",
      dir3: [],
      platformId: null,
      nuts: "NL224",
      orgType: "ra",
    });
  });

  it("reads the one award", () => {
    expect(tender.awards).toEqual([
      {
        // LotResult RES-0001 → TenderLot LOT-0000
        lot: "LOT-0000",
        resultCode: "selec-w",
        // CON-0001 AwardDate 2024-02-14+01:00 (BT-1451); no IssueDate
        awardDate: "2024-02-14",
        // TEN-0001 → TPA-0001 → ORG-0003, CompanyID schemeID="002" 70248311
        winner: foreignWinner("Hegeman Bouw & Infra B.V.", "70248311", "NL", "002"),
        // TEN-0001 PayableAmount EUR 3887000.00 (= NR TotalAmount)
        value: 3887000,
        valuePayable: null,
        currency: "EUR",
        // only a t-esubm statistic (3): no `tenders` count
        biddersCount: null,
        framework: false,
        valueIsCeiling: false,
        // LOT-0000 PlannedPeriod StartDate 2024-04-01+02:00, EndDate 2026-12-31+01:00, no duration
        durationMonths: null,
        // BT-536 is a planned start
        startDate: "2024-04-01",
        startDateKind: "planned",
        endDate: "2026-12-31",
        // no ContractExtension
        extensionText: null,
        extensionMonths: null,
        extensionEndDate: null,
        // no conclusion date (IssueDate) on CON-0001
        contractSigned: false,
        cpv: "45000000",
      },
    ]);
  });
});

describe("eForms CAN 00607986-2024: BEL, no winner", async () => {
  const { tender, errors } = await normalizeFixture("eforms-can-00607986-2024-BEL-no-winner.xml");

  it("reads the procedure and buyer", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "607986-2024",
      folderId: "RDGB-LOG-2023-232318-145",
      upstreamUpdated: "2024-10-08T22:00:00.000Z",
      publicationDate: "2024-10-09",
      // cbc:Name NLD comes first in the document
      title:
        "Brussel-Regie der Gebouwen-Schoonmaak door een externe firma van de gemeenschappelijke en " +
        "privatieve delen beheerd door de beheerdienst van het Gulden Vliesgebouw",
      cpvMain: "90911200",
      cpvAll: ["90911200", "90914000", "90919200"],
      nuts: "BE100",
      framework: false,
      noticeType: "award-notice",
      procedureType: "open",
      contractType: "services",
      // the only result is clos-nw with DecisionReasonCode all-rej (every tender rejected): deserted
      status: "deserted",
    });
    expect(tender.buyer).toMatchObject({
      // ORG-0001 PartyName FRA first, NLD "Regie der Gebouwen"
      name: "Régie des Bâtiments",
      rawId: "0208312646_5511",
      nif: null,
      country: "BE",
    });
  });

  it("keeps the result without winner, with the `tenders` count", () => {
    expect(tender.awards).toEqual([
      {
        lot: "LOT-0001",
        // TenderResultCode clos-nw, DecisionReasonCode all-rej
        resultCode: "clos-nw",
        awardDate: null,
        winner: null,
        value: null,
        valuePayable: null,
        currency: null,
        // StatisticsCode tenders, StatisticsNumeric 3
        biddersCount: 3,
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
        contractSigned: false,
        // LOT-0001 MainCommodityClassification 90919200
        cpv: "90919200",
      },
    ]);
  });
});

describe("eForms CN 00615708-2023: FIN ICT framework (defence, restricted)", async () => {
  const { tender, errors } = await normalizeFixture("eforms-cn-00615708-2023-FIN-ict-framework.xml");

  it("reads the notice", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "615708-2023",
      folderId: "3629/2023",
      // PublicationDate 2023-10-11Z
      upstreamUpdated: "2023-10-11T00:00:00.000Z",
      publicationDate: "2023-10-11",
      noticeType: "contract-notice",
      title: "ICT-järjestelmien rakentamisen tukipalvelut",
      cpvMain: "72000000",
      cpvAll: ["72000000"],
      contractType: "services",
      procedureType: "restricted",
      // RegulatoryDomain 32009L0081 (defence directive): not a concession
      sourceCodes: {
        notice: "cn-standard",
        procedure: "restricted",
        contract: "services",
        legal_basis: "32009L0081",
      },
      // a call for competition
      status: "open",
      // LOT-0000 has no TenderSubmissionDeadlinePeriod; ParticipationRequestReceptionPeriod
      // EndDate 2023-11-10+02:00, EndTime 14:00:00+02:00
      deadline: "2023-11-10T12:00:00.000Z",
      // EstimatedOverallContractAmount EUR 10000000 (FrameworkMaximumAmount is also 10000000, not used)
      estimatedValue: 10000000,
      currency: "EUR",
      // no RealizedLocation anywhere
      nuts: null,
      url: "https://ted.europa.eu/en/notice/-/detail/615708-2023",
      // LOT-0000 framework-agreement fa-wo-rc
      framework: true,
      // LOT-0000 PlannedPeriod DurationMeasure unitCode=MONTH 60
      durationMonths: 60,
      awards: [],
      crossRef: null,
    });
    expect(tender.buyer).toEqual({
      name: "Puolustusvoimien logistiikkalaitos",
      nif: null,
      rawId: "0952029-9",
      idScheme: "002",
      country: "FI",
      dir3: [],
      platformId: null,
      nuts: "FI197",
      orgType: "cga",
    });
  });

  it("announces its extension on the lot (a CN has no awards to carry it)", async () => {
    const root = await readTedNotice(
      createReadStream(`${FIXTURES}eforms-cn-00615708-2023-FIN-ict-framework.xml`),
    );
    const lotErrors: FieldError[] = [];
    const lots = readLots(root, lotErrors);
    expect(lotErrors).toEqual([]);
    // LOT-0000 ContractExtension: MaximumNumberNumeric (BT-58) 2, Renewal/Period/Description (BT-57) FIN only
    // ("two (2) option years"); no OptionsDescription, no structured Period duration or end.
    expect(lots.map((lot) => [lot.id, lot.project.extension])).toEqual([
      [
        "LOT-0000",
        {
          text: "Sopimukseen varataan kaksi (2) optiovuotta.\nRenewals: at most 2",
          months: null,
          endDate: null,
        },
      ],
    ]);
  });
});

describe("eForms CN 00497181-2023: GRC CPV 30 framework, urn: root prefix", async () => {
  const { tender, errors } = await normalizeFixture("eforms-cn-00497181-2023-GRC-cpv30-framework.xml");

  it("reads the estimate, not the framework ceiling, and the deadline with its offset", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "497181-2023",
      folderId: "04/2023",
      publicationDate: "2023-08-14",
      noticeType: "contract-notice",
      cpvMain: "30192800",
      cpvAll: ["30192800"],
      contractType: "supplies",
      procedureType: "open",
      status: "open",
      sourceCodes: {
        notice: "cn-standard",
        procedure: "open",
        contract: "supplies",
        legal_basis: "32014L0024",
      },
      // LOT-0001 TenderSubmissionDeadlinePeriod EndDate 2023-09-20+03:00, EndTime 17:00:00+03:00
      deadline: "2023-09-20T14:00:00.000Z",
      // EstimatedOverallContractAmount 1322581; FrameworkMaximumAmount 1640000 is a ceiling
      estimatedValue: 1322581,
      currency: "EUR",
      nuts: null,
      framework: true,
      // the only DurationMeasure (180 DAY) is the TenderValidityPeriod, not a PlannedPeriod
      durationMonths: null,
    });
    expect(tender.title).toMatch(/^Προμήθεια \(600\.000\.000\) τεμαχίων αυτοκόλλητων ετικετών/);
  });

  it("keeps the junk CompanyID (the organisation's name) as rawId only", () => {
    expect(tender.buyer).toEqual({
      name: "ΕΘΝΙΚΟΣ ΟΡΓΑΝΙΣΜΟΣ ΦΑΡΜΑΚΩΝ",
      nif: null,
      rawId: "ΕΘΝΙΚΟΣ ΟΡΓΑΝΙΣΜΟΣ ΦΑΡΜΑΚΩΝ",
      idScheme: null,
      // GRC → ISO GR; the address NUTS keeps the NUTS spelling EL301
      country: "GR",
      dir3: [],
      platformId: null,
      nuts: "EL301",
      orgType: "body-pl",
    });
  });
});

describe("eForms CN 00402363-2023: ESP concession", async () => {
  const { tender, errors } = await normalizeFixture("eforms-cn-00402363-2023-ESP-concession.xml");

  it("reads the notice", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "402363-2023",
      folderId: "Exp. 086/2023-SGSJC",
      publicationDate: "2023-07-04",
      upstreamUpdated: "2023-07-04T00:00:00.000Z",
      noticeType: "contract-notice",
      // cbc:Name languageID=SPA (&quot; decoded)
      title: 'Concurso Estación marítima de cruceros de uso particular, Terminal "G"',
      cpvMain: "63721200",
      cpvAll: ["63721200"],
      // ProcurementTypeCode services under RegulatoryDomain 32014L0023 (the concessions directive)
      contractType: "concession",
      // subtype 19: no ProcedureCode, no deadline element
      procedureType: null,
      sourceCodes: { notice: "cn-standard", contract: "services", legal_basis: "32014L0023" },
      status: "open",
      deadline: null,
      // EstimatedOverallContractAmount currencyID=EUR 50000000
      estimatedValue: 50000000,
      currency: "EUR",
      nuts: "ES511",
      framework: false,
      durationMonths: null,
      awards: [],
    });
    expect(tender.description).toMatch(/^Concurso para la adjudicación de una concesión administrativa /);
  });

  it("validates the Spanish buyer's NIF", () => {
    expect(tender.buyer).toEqual({
      name: "Autoridad Portuaria de Barcelona",
      // CompanyID Q0867012G, country ESP
      nif: "Q0867012G",
      rawId: "Q0867012G",
      idScheme: null,
      country: "ES",
      dir3: [],
      platformId: null,
      nuts: "ES511",
      // PartyTypeCode listName=buyer-legal-type body-pl (the buyer-contracting-type one is skipped)
      orgType: "body-pl",
    });
  });
});

describe("eForms SDK example can_24_FRA_comments (not published)", async () => {
  const { tender, errors } = await normalizeFixture("eforms-sdk-example-can_24_FRA_comments.xml");

  it("keys an unpublished notice by notice id and version, with no URL", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      // no efac:Publication: cbc:ID (BT-701) + "-" + cbc:VersionID (BT-757)
      sourceRef: "df45f4d1-2208-47cb-bc7a-9c7edcf8d2b8-01",
      url: null,
      publicationDate: null,
      // cbc:IssueDate 2019-10-23+01:00 + cbc:IssueTime 00:00:00+01:00
      upstreamUpdated: "2019-10-22T23:00:00.000Z",
      folderId: "19S0001",
      title: "Service d'entretien de remise en état et de nettoyage des espaces verts",
      description: "Service d'entretien de remise en état et de nettoyage des espaces verts.",
      cpvMain: "77310000",
      cpvAll: ["77310000"],
      noticeType: "award-notice",
      procedureType: "open",
      contractType: "services",
      // both lots selec-w, their SettledContract IssueDate (BT-145) 2019-09-03: signed
      status: "signed",
      // procedure RealizedLocation CountrySubentityCode FRD22
      nuts: "FRD22",
      framework: false,
    });
    expect(tender.buyer).toMatchObject({ name: "Rouen Habitat", rawId: "123 456 789", country: "FR" });
  });

  it("reads both lots' awards", () => {
    // LOT-0001 / LOT-0002 PlannedPeriod: StartDate 2019-09-01+02:00, EndDate 2020-12-31
    const lotPeriod = {
      durationMonths: null,
      startDate: "2019-09-01",
      startDateKind: "planned",
      endDate: "2020-12-31",
    };
    // LOT-0001 / LOT-0002 ContractExtension, identical: OptionsDescription (BT-54) FRA, Renewal/Period/
    // Description (BT-57) FRA, MaximumNumberNumeric (BT-58) 3. The "12 mois" and "31.12.2023" in the text are
    // not read into months or an end date: the Period has no DurationMeasure or EndDate.
    const lotExtension = {
      extensionText:
        "Options description ---\n" +
        "L'accord-cadre est reconductible de manière tacite, dans les conditions définies au cahier des " +
        "clauses administratives particulières, 3 fois, pour une période de 12 mois, à compter du 1.1.2021, " +
        "sans pouvoir excéder le 31.12.2023.\n" +
        "Renewals: at most 3",
      extensionMonths: null,
      extensionEndDate: null,
    };
    expect(tender.awards).toEqual([
      {
        lot: "LOT-0001",
        resultCode: "selec-w",
        // CON-0001 AwardDate 2019-09-02+02:00 (BT-1451) wins over IssueDate 2019-09-03
        awardDate: "2019-09-02",
        // TEN-0001 → TPA-0001 → ORG-0004
        winner: foreignWinner("Espaces Verts Lemire", "326 912 557", "FR"),
        value: 95414,
        valuePayable: null,
        currency: "EUR",
        // StatisticsCode tenders 3 (t-sme 3, t-esubm 0 ignored)
        biddersCount: 3,
        framework: false,
        valueIsCeiling: false,
        ...lotPeriod,
        ...lotExtension,
        contractSigned: true,
        cpv: "77310000",
      },
      {
        lot: "LOT-0002",
        resultCode: "selec-w",
        awardDate: "2019-09-02",
        // TEN-0002 → TPA-0002 → ORG-0005
        winner: foreignWinner("ID Verde SASU", "339 609 661", "FR"),
        value: 26500,
        valuePayable: null,
        currency: "EUR",
        biddersCount: 2,
        framework: false,
        valueIsCeiling: false,
        ...lotPeriod,
        ...lotExtension,
        contractSigned: true,
        cpv: "77310000",
      },
    ]);
  });
});
