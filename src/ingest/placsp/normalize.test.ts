import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { craftedPage } from "../../../test/helpers/crafted-placsp.ts";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import type { NormalizedTender, NormalizeResult } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { normalizePlacspEntry, PlacspEntryError } from "./normalize.ts";
import { readPlacspFeed } from "./parse.ts";

const FIXTURES = `${SHARED_DIR}fixtures/placsp/`;
const CAT_PORTAL = "https://contractaciopublica.cat/ca/detall-publicacio/";
const DEEPLINK = "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion";

async function entriesOf(input: AsyncIterable<string | Uint8Array>): Promise<XmlElement[]> {
  const entries: XmlElement[] = [];
  for await (const item of readPlacspFeed(input)) {
    if (item.kind === "entry") {
      entries.push(item.element);
    }
  }
  return entries;
}

async function normalizeFixture(file: string, feed: string): Promise<NormalizeResult[]> {
  const entries = await entriesOf(createReadStream(`${FIXTURES}${file}`));
  return entries.map((entry) => normalizePlacspEntry(entry, { feed }));
}

function only<T>(values: readonly T[], index = 0): T {
  const value = values[index];
  if (value === undefined) {
    throw new Error(`no element at index ${index}`);
  }
  return value;
}

describe("normalizePlacspEntry: 2-entry page, ADJ 3-lot folder S-05669-2025 (RTVE)", async () => {
  const results = await normalizeFixture("licitaciones_completo3_2025-12_2entries_tombstone.atom", "643");
  const { tender, errors } = only(results, 0);

  it("reads the folder fields", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      source: "placsp",
      // entry/id
      sourceRef: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649",
      feed: "643",
      // cbc:ContractFolderID
      folderId: "S-05669-2025",
      // entry/updated 2025-12-29T18:57:52.718+01:00
      upstreamUpdated: "2025-12-29T17:57:52.718Z",
      // ValidNoticeInfo: DOC_CAN_ADJ issued 2025-12-29 (latest); DOC_CD and DOC_CN 2025-12-04
      noticeType: "award-notice",
      // min "Perfil del contratante" IssueDate of non-PIN notices: DOC_CD/DOC_CN 2025-12-04
      publicationDate: "2025-12-04",
      // ProcurementProject/cbc:Name "Alquiler equipos filmación-  Benidorm Fest 2026" (spaces collapsed)
      title: "Alquiler equipos filmación- Benidorm Fest 2026",
      description: null,
      // folder CPV 32000000; lots 42414100, 32000000, 32000000
      cpvMain: "32000000",
      cpvAll: ["32000000", "42414100"],
      // cbc:TypeCode 1 (Suministros); TenderingProcess/cbc:ProcedureCode 1 (Abierto)
      contractType: "supplies",
      procedureType: "open",
      // TenderSubmissionDeadlinePeriod 2025-12-22 + 09:30:00, Madrid winter time (+01:00)
      deadline: "2025-12-22T08:30:00.000Z",
      // BudgetAmount/EstimatedOverallContractAmount currencyID="EUR" 195000
      estimatedValue: 195000,
      currency: "EUR",
      // RealizedLocation/CountrySubentityCode
      nuts: "ES521",
      // entry/link/@href (&amp; decoded)
      url: `${DEEPLINK}&idEvl=4Mx0Dhk3DIG8ebB%2FXTwy0A%3D%3D`,
      // ContractFolderStatusCode ADJ (Adjudicada)
      status: "awarded",
      sourceCodes: { notice: "DOC_CAN_ADJ", procedure: "1", contract: "1", status: "ADJ" },
      // ContractingSystemCode 0
      framework: false,
      // PlannedPeriod/DurationMeasure unitCode="DAY" 24 -> 24 × 12 / 365 = 0.789…
      durationMonths: 0.79,
      crossRef: null,
    });
  });

  it("reads the buyer from its own Party, not from the ParentLocatedParty hierarchy", () => {
    // LocatedContractingParty/cac:Party: DIR3 EA0008275, NIF A84818558, ID_PLATAFORMA 50485810086581;
    // the parents carry DIR3 EA0000141 (SEPI) and E05188501 (Ministerio de Hacienda): not the buyer's.
    expect(tender.buyer).toEqual({
      name: "Dirección de Compras de la Corporación de Radio y Televisión Española S.A.",
      nif: "A84818558",
      rawId: "A84818558",
      idScheme: "NIF",
      country: "ES",
      dir3: ["EA0008275"],
      platformId: "50485810086581",
      nuts: null,
      // cbc:ContractingPartyTypeCode 6
      orgType: "6",
    });
  });

  it("maps the three lot results to three awards", () => {
    // Each cac:TenderResult: ResultCode 8, AwardDate 2025-12-29, WinningParty NIF B60707239
    // "SERVEIS DE PRODUCCIÓ MUXART, S.L.", LegalMonetaryTotal TaxExclusiveAmount / PayableAmount.
    const winner = {
      name: "SERVEIS DE PRODUCCIÓ MUXART, S.L.",
      nif: "B60707239",
      rawId: "B60707239",
      idScheme: "NIF",
      country: "ES",
      isJointVenture: false,
      members: [],
    };
    const common = {
      resultCode: "8",
      awardDate: "2025-12-29",
      currency: "EUR",
      framework: false,
      valueIsCeiling: false,
      // lots have no PlannedPeriod: the folder's 24 days (and no StartDate anywhere)
      durationMonths: 0.79,
      startDate: null,
      startDateKind: null,
      endDate: null,
      // no ContractExtension
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
      contractSigned: false,
      winner,
    };
    expect(tender.awards).toEqual([
      // lot 1 "grua telescopica", CPV 42414100; 1 bid; 42500 / 51425
      { ...common, lot: "1", value: 42500, valuePayable: 51425, biddersCount: 1, cpv: "42414100" },
      // lot 2 "cablecam", CPV 32000000; 2 bids; 47350 / 57293.5
      { ...common, lot: "2", value: 47350, valuePayable: 57293.5, biddersCount: 2, cpv: "32000000" },
      // lot 3 "Alquiler 2 Camrail…", CPV 32000000; 2 bids; 88000 / 106480
      { ...common, lot: "3", value: 88000, valuePayable: 106480, biddersCount: 2, cpv: "32000000" },
    ]);
  });
});

describe("normalizePlacspEntry: 2-entry page, EV works folder 2025/159 (Cádiz)", async () => {
  const results = await normalizeFixture("licitaciones_completo3_2025-12_2entries_tombstone.atom", "643");
  const { tender, errors } = only(results, 1);

  it("reads the folder fields", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18294555",
      folderId: "2025/159",
      // 2025-12-29T18:44:42.366+01:00
      upstreamUpdated: "2025-12-29T17:44:42.366Z",
      // DOC_CD and DOC_CN both issued 2025-10-30: the contract notice is the later stage
      noticeType: "contract-notice",
      publicationDate: "2025-10-30",
      title: "Plan de asfaltado 2025 (Plan Cádiz Marcha 2025).",
      cpvMain: "45233222",
      cpvAll: ["45233222", "45233223"],
      // TypeCode 3 (Obras), ProcedureCode 9 (Abierto simplificado)
      contractType: "works",
      procedureType: "simplified-open",
      // TenderSubmissionDeadlinePeriod 2025-11-20 + 10:00:00 (+01:00)
      deadline: "2025-11-20T09:00:00.000Z",
      estimatedValue: 367768.59,
      currency: "EUR",
      nuts: "ES612",
      // EV (Pendiente de adjudicación)
      status: "evaluation",
      sourceCodes: { notice: "DOC_CN", procedure: "9", contract: "3", status: "EV" },
      framework: false,
      // DurationMeasure unitCode="MON" 1
      durationMonths: 1,
      awards: [],
    });
    expect(tender.buyer).toEqual({
      name: "Junta de Gobierno del Ayuntamiento de Cádiz",
      nif: "P1101200B",
      rawId: "P1101200B",
      idScheme: "NIF",
      country: "ES",
      dir3: ["L01110125"],
      platformId: "31056300149390",
      nuts: null,
      orgType: "3",
    });
  });
});

describe("normalizePlacspEntry: lifecycle of folder 17165996 (11 versions, newest first)", async () => {
  const results = await normalizeFixture("licitaciones_completo3_lifecycle_17165996.atom", "643");
  const tenders = results.map((r) => r.tender);
  const version = (updated: string): NormalizedTender => {
    const found = tenders.find((t) => t.upstreamUpdated === updated);
    if (!found) {
      throw new Error(`no version ${updated}`);
    }
    return found;
  };

  it("keeps one sourceRef across all 11 versions and reads each version's updated and status", () => {
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(new Set(tenders.map((t) => t.sourceRef))).toEqual(
      new Set(["https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996"]),
    );
    // entry/updated (all +02:00), ContractFolderStatusCode and the status it maps to, in file order (newest
    // first). RES ("Resuelta") is read from the result: ResultCode 9 (Formalizado) is a signed contract.
    expect(tenders.map((t) => [t.upstreamUpdated, t.sourceCodes.status, t.status])).toEqual([
      ["2025-08-18T07:00:00.000Z", "RES", "signed"], // 2025-08-18T09:00:00.000+02:00 (DOUE DOC_FORM only)
      ["2025-08-16T07:58:08.174Z", "RES", "signed"], // 2025-08-16T09:58:08.174+02:00
      ["2025-07-18T11:25:26.131Z", "ADJ", "awarded"], // 2025-07-18T13:25:26.131+02:00
      ["2025-07-11T08:31:31.356Z", "EV", "evaluation"], // 2025-07-11T10:31:31.356+02:00
      ["2025-07-09T06:27:37.660Z", "EV", "evaluation"], // 2025-07-09T08:27:37.660+02:00
      ["2025-06-19T13:43:28.963Z", "EV", "evaluation"], // 2025-06-19T15:43:28.963+02:00
      ["2025-06-13T11:24:16.856Z", "EV", "evaluation"], // 2025-06-13T13:24:16.856+02:00
      ["2025-06-05T11:32:01.154Z", "PUB", "open"], // 2025-06-05T13:32:01.154+02:00
      ["2025-05-13T07:00:00.000Z", "PUB", "open"], // 2025-05-13T09:00:00.000+02:00
      ["2025-05-12T10:28:43.718Z", "PUB", "open"], // 2025-05-12T12:28:43.718+02:00
      ["2025-04-23T08:10:47.177Z", "PUB", "open"], // 2025-04-23T10:10:47.177+02:00
    ]);
  });

  it("reads the fields every version shares", () => {
    for (const tender of tenders) {
      expect(tender).toMatchObject({
        folderId: "2/2025",
        // cbc:UUID schemeName="TED"
        crossRef: "465757cf-6420-455d-b344-cbfd8de2f79c",
        // DOC_CN / DOC_CD on "Perfil del contratante" first issued 2025-04-23
        publicationDate: "2025-04-23",
        cpvMain: "72313000",
        cpvAll: ["72313000"],
        // TypeCode 2 (Servicios), ProcedureCode 1 (Abierto)
        contractType: "services",
        procedureType: "open",
        estimatedValue: 261901.77,
        currency: "EUR",
        nuts: "ES70",
        // PlannedPeriod DurationMeasure unitCode="MON" 8
        durationMonths: 8,
      });
      expect(tender.sourceCodes).toMatchObject({ procedure: "1", contract: "2" });
      // The party has DIR3 A05003423; A05017462 belongs to its parent (Consejería de Hacienda…).
      expect(tender.buyer).toMatchObject({
        name: "Director del Instituto Canario de Estadística (ISTAC)",
        nif: "Q8550002C",
        dir3: ["A05003423"],
        platformId: "21054580149218",
        orgType: "2",
      });
    }
  });

  it("follows the deadline extension: 2025-05-23 15:00 in the first version, 2025-06-12 15:00 later", () => {
    expect(version("2025-04-23T08:10:47.177Z").deadline).toBe("2025-05-23T13:00:00.000Z");
    expect(version("2025-05-12T10:28:43.718Z").deadline).toBe("2025-06-12T13:00:00.000Z");
  });

  it("has no award before ADJ", () => {
    expect(tenders.filter((t) => t.awards.length > 0).map((t) => t.sourceCodes.status)).toEqual([
      "RES",
      "RES",
      "ADJ",
    ]);
  });

  it("reads the ADJ award: REDCA S.A., 4 bids, 224002.34 ex-VAT, not yet signed", () => {
    const adj = version("2025-07-18T11:25:26.131Z");
    // newest notice DOC_CAN_ADJ issued 2025-07-18
    expect([adj.sourceCodes.notice, adj.noticeType]).toEqual(["DOC_CAN_ADJ", "award-notice"]);
    expect(adj.awards).toEqual([
      {
        // no AwardedTenderedProject/ProcurementProjectLotID: the folder has no lots
        lot: null,
        resultCode: "8",
        awardDate: "2025-07-18",
        winner: {
          name: "REDCA S.A.",
          nif: "A38210100",
          rawId: "A38210100",
          idScheme: "NIF",
          // PhysicalLocation/Address/Country/IdentificationCode
          country: "ES",
          isJointVenture: false,
          members: [],
        },
        value: 224002.34,
        // PayableAmount includes 7 % IGIC (Canary Islands)
        valuePayable: 239682.5,
        currency: "EUR",
        biddersCount: 4,
        framework: false,
        valueIsCeiling: false,
        durationMonths: 8,
        // no TenderResult/StartDate yet: the folder's PlannedPeriod/StartDate
        startDate: "2025-07-15",
        startDateKind: "planned",
        endDate: null,
        // no ContractExtension
        extensionText: null,
        extensionMonths: null,
        extensionEndDate: null,
        contractSigned: false,
        cpv: "72313000",
      },
    ]);
  });

  it("reads the RES award: formalized (9), signed, starting 2025-08-13", () => {
    for (const updated of ["2025-08-16T07:58:08.174Z", "2025-08-18T07:00:00.000Z"]) {
      const res = version(updated);
      expect(res.awards).toHaveLength(1);
      // cbc:ResultCode 9, cbc:StartDate 2025-08-13, cac:Contract ID 120522/2025 IssueDate 2025-08-12
      expect(res.awards[0]).toMatchObject({
        resultCode: "9",
        awardDate: "2025-07-18",
        // the actual start wins over the planned 2025-07-15
        startDate: "2025-08-13",
        startDateKind: "actual",
        contractSigned: true,
        value: 224002.34,
        biddersCount: 4,
        winner: { name: "REDCA S.A.", nif: "A38210100" },
      });
    }
    // newest notice: DOC_FORM, issued 2025-08-16 on the profile and 2025-08-18 in the DOUE
    const newest = version("2025-08-18T07:00:00.000Z");
    expect([newest.sourceCodes.notice, newest.noticeType]).toEqual(["DOC_FORM", "contract-signed"]);
  });
});

describe("normalizePlacspEntry: aggregated (1044) entry, AMB Barcelona", async () => {
  const results = await normalizeFixture("agregadas_sinmenores_2026-09_1entry_tombstone.atom", "1044");
  const { tender, errors } = only(results);

  it("reads a buyer without NIF or DIR3, identified by ID_OC_PLAT", () => {
    expect(errors).toEqual([]);
    // cac:Party has only <cbc:ID schemeName="ID_OC_PLAT">28027859</cbc:ID>; AgentParty 62 is the platform.
    expect(tender.buyer).toEqual({
      name: "Àrea Metropolitana de Barcelona",
      nif: null,
      rawId: "28027859",
      idScheme: "ID_OC_PLAT",
      country: null,
      dir3: [],
      platformId: "28027859",
      nuts: null,
      orgType: null,
    });
  });

  it("reads the folder fields, converting the ANN duration to months", () => {
    expect(tender).toMatchObject({
      sourceRef: "https://contrataciondelestado.es/sindicacion/PlataformasAgregadasSinMenores/20283724",
      feed: "1044",
      folderId: "905451/26",
      // 2026-09-21T22:00:26.651+02:00
      upstreamUpdated: "2026-09-21T20:00:26.651Z",
      noticeType: "contract-notice",
      publicationDate: "2026-08-11",
      cpvMain: "90513000",
      cpvAll: ["90513000"],
      contractType: "services",
      procedureType: "open",
      // 2026-09-14 14:00:00, Madrid summer time (+02:00)
      deadline: "2026-09-14T12:00:00.000Z",
      // EstimatedOverallContractAmount 2183870.93 (the budget, TaxExclusiveAmount 949509.1, is not used)
      estimatedValue: 2183870.93,
      currency: "EUR",
      nuts: "ES511",
      // entry/link points to the regional platform
      url: `${CAT_PORTAL}4b131001-63ad-4eac-a80a-ab91c3a9f366/300888482`,
      status: "evaluation",
      sourceCodes: { notice: "DOC_CN", procedure: "1", contract: "2", status: "EV" },
      framework: false,
      // DurationMeasure unitCode="ANN" 2
      durationMonths: 24,
      awards: [],
      crossRef: null,
    });
  });
});

describe("normalizePlacspEntry: streaming does not change results", () => {
  it("normalizes the same from 7-byte chunks as from a file stream", async () => {
    const file = "licitaciones_completo3_2025-12_2entries_tombstone.atom";
    const bytes = new Uint8Array(await readFile(`${FIXTURES}${file}`));
    async function* sevenBytes(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += 7) {
        yield bytes.subarray(i, i + 7);
      }
    }
    const chunked = (await entriesOf(sevenBytes())).map((entry) =>
      normalizePlacspEntry(entry, { feed: "643" }),
    );
    expect(chunked).toEqual(await normalizeFixture(file, "643"));
    expect(chunked).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Edge cases, as small inline entries.

const CBC = "urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2";
const CAC = "urn:dgpe:names:draft:codice:schema:xsd:CommonAggregateComponents-2";
const CBC_EXT = "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonBasicComponents-2";
const CAC_EXT = "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonAggregateComponents-2";
const DECLS = `xmlns="http://www.w3.org/2005/Atom" xmlns:cbc="${CBC}" xmlns:cac="${CAC}"
  xmlns:cbc-place-ext="${CBC_EXT}" xmlns:cac-place-ext="${CAC_EXT}"`;

function entryXml(cfs: string, head = `<updated>2025-03-01T10:00:00.000+01:00</updated>`): string {
  return `<feed ${DECLS}><entry><id>https://x/1</id>${head}
    <cac-place-ext:ContractFolderStatus>${cfs}</cac-place-ext:ContractFolderStatus></entry></feed>`;
}

async function normalizeXml(xml: string): Promise<NormalizeResult> {
  async function* one(): AsyncGenerator<string> {
    yield xml;
  }
  const entry = only(await entriesOf(one()));
  return normalizePlacspEntry(entry, { feed: null });
}

function tenderResult(body: string): string {
  return `<cac:TenderResult>${body}</cac:TenderResult>`;
}

const WINNER = `<cac:WinningParty><cac:PartyIdentification><cbc:ID schemeName="NIF">B60707239</cbc:ID>
  </cac:PartyIdentification><cac:PartyName><cbc:Name>  ACME   S.L. </cbc:Name></cac:PartyName>
  </cac:WinningParty>`;

function amounts(exclusive: string, payable: string): string {
  return `<cac:AwardedTenderedProject><cac:LegalMonetaryTotal>
    <cbc:TaxExclusiveAmount currencyID="EUR">${exclusive}</cbc:TaxExclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">${payable}</cbc:PayableAmount></cac:LegalMonetaryTotal>
    </cac:AwardedTenderedProject>`;
}

describe("normalizePlacspEntry: unreadable values become null plus a FieldError", () => {
  it("a malformed awarded amount", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}${amounts("12,5x", "15.13")}`)),
    );
    expect(tender.awards[0]?.value).toBeNull();
    expect(tender.awards[0]?.valuePayable).toBe(15.13);
    expect(tender.awards[0]?.winner?.name).toBe("ACME S.L.");
    expect(errors).toEqual([{ field: "tenderResults[0].value", reason: 'not a decimal amount: "12,5x"' }]);
  });

  it("unknown codes, bad dates, counts, CPVs and duration units", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(`<cbc-place-ext:ContractFolderStatusCode>OPEN</cbc-place-ext:ContractFolderStatusCode>
        <cac:ProcurementProject><cbc:TypeCode>99</cbc:TypeCode>
          <cac:RequiredCommodityClassification><cbc:ItemClassificationCode>7231</cbc:ItemClassificationCode>
          </cac:RequiredCommodityClassification>
          <cac:RequiredCommodityClassification>
            <cbc:ItemClassificationCode>72313000-2</cbc:ItemClassificationCode>
          </cac:RequiredCommodityClassification>
          <cac:PlannedPeriod><cbc:DurationMeasure unitCode="HUR">40</cbc:DurationMeasure></cac:PlannedPeriod>
        </cac:ProcurementProject>
        ${tenderResult(`<cbc:ResultCode>42</cbc:ResultCode><cbc:AwardDate>18/07/2025</cbc:AwardDate>
          <cbc:ReceivedTenderQuantity>four</cbc:ReceivedTenderQuantity>`)}`),
    );
    expect(tender).toMatchObject({
      status: null,
      contractType: null,
      // unknown codes are kept as published, never dropped
      sourceCodes: { contract: "99", status: "OPEN" },
      // the check digit is dropped from a well-formed code; the malformed one is skipped
      cpvMain: "72313000",
      cpvAll: ["72313000"],
      durationMonths: null,
    });
    expect(tender.awards).toMatchObject([{ resultCode: null, awardDate: null, biddersCount: null }]);
    expect(errors.map((e) => e.field)).toEqual([
      "project.cpv[0]",
      "project.duration",
      "tenderResults[0].resultCode",
      "tenderResults[0].awardDate",
      "tenderResults[0].biddersCount",
      "status",
      "contractType",
    ]);
    expect(errors.filter((e) => e.field === "status" || e.field === "contractType")).toEqual([
      {
        field: "status",
        reason: 'not a code of the PLACSP SyndicationContractFolderStatusCode list: "OPEN"',
      },
      { field: "contractType", reason: 'not a code of the PLACSP ContractCode list: "99"' },
    ]);
  });

  it("treats an amount of 0 as unknown, without an error", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(`<cac:ProcurementProject><cac:BudgetAmount>
          <cbc:EstimatedOverallContractAmount currencyID="EUR">0</cbc:EstimatedOverallContractAmount>
        </cac:BudgetAmount></cac:ProcurementProject>
        ${tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}${amounts("0", "0.00")}`)}`),
    );
    expect(tender.estimatedValue).toBeNull();
    // the currency is still known from the amount element
    expect(tender.currency).toBe("EUR");
    expect(tender.awards[0]).toMatchObject({ value: null, valuePayable: null, currency: null });
    expect(errors).toEqual([]);
  });

  it("keeps a winner id that is not a valid NIF as rawId only", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(
        tenderResult(`<cbc:ResultCode>8</cbc:ResultCode><cac:WinningParty><cac:PartyIdentification>
          <cbc:ID schemeName="NIF">B60707238</cbc:ID></cac:PartyIdentification>
          <cac:PartyName><cbc:Name>UTE OBRAS CADIZ</cbc:Name></cac:PartyName></cac:WinningParty>`),
      ),
    );
    expect(tender.awards[0]?.winner).toMatchObject({ nif: null, rawId: "B60707238", idScheme: "NIF" });
    expect(errors).toEqual([
      { field: "tenderResults[0].winners[0].nif", reason: 'published tax id does not validate: "B60707238"' },
    ]);
  });

  it("throws PlacspEntryError when the entry cannot be keyed or versioned", async () => {
    await expect(normalizeXml(entryXml("", ""))).rejects.toThrow(PlacspEntryError);
    await expect(normalizeXml(entryXml("", "<updated>2025-03-01T10:00:00</updated>"))).rejects.toThrow(
      /no valid <updated>/,
    );
  });
});

describe("normalizePlacspEntry: award rules", () => {
  it("void results have no winner and no value, even when amounts are published", async () => {
    for (const code of ["3", "4", "5", "6", "7"]) {
      const { tender, errors } = await normalizeXml(
        entryXml(
          tenderResult(`<cbc:ResultCode>${code}</cbc:ResultCode><cbc:AwardDate>2025-07-18</cbc:AwardDate>
            <cbc:ReceivedTenderQuantity>0</cbc:ReceivedTenderQuantity>
            <cbc:StartDate>2025-08-01</cbc:StartDate>
            ${WINNER}${amounts("1000", "1210")}`),
        ),
      );
      expect(errors).toEqual([]);
      expect(tender.awards).toEqual([
        {
          lot: null,
          resultCode: code,
          awardDate: "2025-07-18",
          winner: null,
          value: null,
          valuePayable: null,
          currency: null,
          // zero bids is a real count
          biddersCount: 0,
          framework: false,
          valueIsCeiling: false,
          durationMonths: null,
          startDate: null,
          startDateKind: null,
          endDate: null,
          // void result: no extensions
          extensionText: null,
          extensionMonths: null,
          extensionEndDate: null,
          contractSigned: false,
          cpv: null,
        },
      ]);
    }
  });

  it("one award per winner when a result names several; their shared amount is not attributed", async () => {
    const second = WINNER.replace("B60707239", "A38210100").replace("ACME", "REDCA");
    const { tender, errors } = await normalizeXml(
      entryXml(
        tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}${second}${amounts("5000", "6050")}`),
      ),
    );
    expect(tender.awards.map((a) => [a.winner?.nif, a.value, a.valuePayable])).toEqual([
      ["B60707239", null, null],
      ["A38210100", null, null],
    ]);
    expect(errors.map((e) => e.field)).toEqual(["tenderResults[0].value"]);
  });

  it("framework agreements: awarded values are ceilings", async () => {
    const { tender } = await normalizeXml(
      entryXml(`<cac:TenderingProcess><cbc:ContractingSystemCode>1</cbc:ContractingSystemCode>
        </cac:TenderingProcess>
        ${tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}${amounts("5000", "6050")}`)}`),
    );
    expect(tender.framework).toBe(true);
    expect(tender.awards[0]).toMatchObject({ framework: true, value: 5000, valueIsCeiling: true });
  });

  it("uses the lot's duration, CPV and published end date, else the folder's", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(`<cac:ProcurementProject>
          <cac:RequiredCommodityClassification>
            <cbc:ItemClassificationCode>72000000</cbc:ItemClassificationCode>
          </cac:RequiredCommodityClassification>
          <cac:PlannedPeriod><cbc:DurationMeasure unitCode="DAY">365</cbc:DurationMeasure>
            <cbc:EndDate>2026-12-31</cbc:EndDate></cac:PlannedPeriod>
        </cac:ProcurementProject>
        <cac:ProcurementProjectLot><cbc:ID schemeName="ID_LOTE">1</cbc:ID><cac:ProcurementProject>
          <cac:RequiredCommodityClassification>
            <cbc:ItemClassificationCode>72200000</cbc:ItemClassificationCode>
          </cac:RequiredCommodityClassification>
          <cac:PlannedPeriod><cbc:DurationMeasure unitCode="WEE">26</cbc:DurationMeasure></cac:PlannedPeriod>
        </cac:ProcurementProject></cac:ProcurementProjectLot>
        <cac:ProcurementProjectLot><cbc:ID schemeName="ID_LOTE">2</cbc:ID></cac:ProcurementProjectLot>
        ${tenderResult(`<cbc:ResultCode>9</cbc:ResultCode>${WINNER}
          <cac:AwardedTenderedProject><cbc:ProcurementProjectLotID>1</cbc:ProcurementProjectLotID>
          </cac:AwardedTenderedProject>`)}
        ${tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}
          <cac:Contract><cbc:IssueDate>2025-09-01</cbc:IssueDate></cac:Contract>
          <cac:AwardedTenderedProject><cbc:ProcurementProjectLotID>2</cbc:ProcurementProjectLotID>
          </cac:AwardedTenderedProject>`)}`),
    );
    expect(errors).toEqual([]);
    // 365 days = 12 months; 26 weeks = 182 days = 5.98 months
    expect(tender.durationMonths).toBe(12);
    expect(tender.cpvAll).toEqual(["72000000", "72200000"]);
    expect(tender.awards.map((a) => [a.lot, a.durationMonths, a.cpv, a.endDate, a.contractSigned])).toEqual([
      ["1", 5.98, "72200000", "2026-12-31", true],
      // lot 2 states nothing: folder values; a signature date (Contract/IssueDate) means signed
      ["2", 12, "72000000", "2026-12-31", true],
    ]);
    expect(tender.awards.map((a) => a.startDate)).toEqual([null, null]);
  });

  it("start date: the actual one (TenderResult/StartDate), else the lot's planned one, else the folder's", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(`<cac:ProcurementProject>
          <cac:PlannedPeriod><cbc:StartDate>2026-01-01</cbc:StartDate>
            <cbc:DurationMeasure unitCode="MON">12</cbc:DurationMeasure></cac:PlannedPeriod>
        </cac:ProcurementProject>
        <cac:ProcurementProjectLot><cbc:ID schemeName="ID_LOTE">1</cbc:ID><cac:ProcurementProject>
          <cac:PlannedPeriod><cbc:StartDate>2026-03-01</cbc:StartDate></cac:PlannedPeriod>
        </cac:ProcurementProject></cac:ProcurementProjectLot>
        ${tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}
          <cac:AwardedTenderedProject><cbc:ProcurementProjectLotID>1</cbc:ProcurementProjectLotID>
          </cac:AwardedTenderedProject>`)}
        ${tenderResult(`<cbc:ResultCode>8</cbc:ResultCode>${WINNER}
          <cac:AwardedTenderedProject><cbc:ProcurementProjectLotID>2</cbc:ProcurementProjectLotID>
          </cac:AwardedTenderedProject>`)}
        ${tenderResult(`<cbc:ResultCode>9</cbc:ResultCode><cbc:StartDate>2026-02-15</cbc:StartDate>${WINNER}
          <cac:AwardedTenderedProject><cbc:ProcurementProjectLotID>1</cbc:ProcurementProjectLotID>
          </cac:AwardedTenderedProject>`)}
        ${tenderResult(`<cbc:ResultCode>3</cbc:ResultCode>
          <cac:AwardedTenderedProject><cbc:ProcurementProjectLotID>1</cbc:ProcurementProjectLotID>
          </cac:AwardedTenderedProject>`)}`),
    );
    expect(errors).toEqual([]);
    expect(tender.awards.map((a) => [a.lot, a.startDate, a.startDateKind, a.contractSigned])).toEqual([
      // lot 1 plans 2026-03-01; a planned start is no evidence of a signed contract
      ["1", "2026-03-01", "planned", false],
      // lot 2 plans nothing: the folder's 2026-01-01
      ["2", "2026-01-01", "planned", false],
      // the contract's own start, published once it is signed
      ["1", "2026-02-15", "actual", true],
      // a void result has no contract, so no start
      ["1", null, null, false],
    ]);
  });
});

describe("normalizePlacspEntry: status of a resolved (RES) folder comes from its results", () => {
  const res = (results: string) =>
    normalizeXml(
      entryXml(
        `<cbc-place-ext:ContractFolderStatusCode>RES</cbc-place-ext:ContractFolderStatusCode>${results}`,
      ),
    );
  const result = (code: string, extra = "") =>
    tenderResult(`<cbc:ResultCode>${code}</cbc:ResultCode>${extra}`);

  it.each([
    // formalizado on one lot, desierto on another: a contract was signed
    ["9 + 3", `${result("9", WINNER)}${result("3")}`, "signed"],
    // adjudicado (a contrato menor goes PUB → RES with result 8 and no formalization)
    ["8", result("8", WINNER), "awarded"],
    // adjudicado with a published contract signature date
    [
      "8 + Contract/IssueDate",
      result("8", `${WINNER}<cac:Contract><cbc:IssueDate>2025-01-02</cbc:IssueDate></cac:Contract>`),
      "signed",
    ],
    ["3 + 7", `${result("3")}${result("7")}`, "deserted"],
    // a withdrawal on any lot of an otherwise void folder: cancelled
    ["3 + 4", `${result("3")}${result("4")}`, "cancelled"],
    ["5", result("5"), "cancelled"],
    // no result published: how it was resolved is not known
    ["none", "", null],
  ])("results %s → %s", async (_label, results, status) => {
    const normalized = await res(results);
    expect(normalized.tender.sourceCodes.status).toBe("RES");
    expect(normalized.tender.status).toBe(status);
  });

  it("is null when an unknown result leaves the outcome open, and reports the code", async () => {
    const { tender, errors } = await res(`${result("3")}${result("42")}`);
    expect(tender.status).toBeNull();
    expect(errors.map((e) => e.field)).toEqual(["tenderResults[1].resultCode"]);
  });
});

describe("normalizePlacspEntry: contract extensions (ContractExtension)", () => {
  const buyer = { name: "Ayuntamiento de Prueba", nif: "Q0867012G" };
  const winner = { name: "Alfa Sistemas S.L.", nif: "B12345674" };

  it("inherits the folder's extension field by field where a lot states none, and voids have none", async () => {
    const { tender, errors } = await normalizeXml(
      craftedPage([
        {
          n: 1,
          buyer,
          cpv: "72000000",
          extension: {
            options: "Prórroga  de un año,\n  dos veces",
            description: "Hasta dos prórrogas anuales",
            duration: { value: "2", unit: "ANN" },
            endDate: "2028-06-30",
          },
          lots: [
            {
              id: "1",
              extension: { options: "Lote 1: ampliación del 10 %", duration: { value: "180", unit: "DAY" } },
            },
            { id: "2" },
            { id: "3", extension: { duration: { value: "6", unit: "MON" }, endDate: "2027-12-31" } },
          ],
          results: [
            { lot: "1", winner, value: 1000 },
            { lot: "2", winner, value: 2000 },
            { lot: "3", winner, value: 3000 },
            // desierto, on a lot that announces an extension
            { lot: "1", resultCode: "3", winner: null },
          ],
        },
      ]),
    );
    expect(errors).toEqual([]);
    const folderText = "Prórroga de un año, dos veces\nHasta dos prórrogas anuales";
    expect(
      tender.awards.map((a) => [a.lot, a.resultCode, a.extensionText, a.extensionMonths, a.extensionEndDate]),
    ).toEqual([
      // the lot's text and 180 DAY = 180 × 12 / 365 = 5.917 months; no EndDate on the lot: the folder's
      ["1", "8", "Lote 1: ampliación del 10 %", 5.92, "2028-06-30"],
      // no ContractExtension on the lot: the folder's OptionsDescription (whitespace collapsed) then its
      // OptionValidityPeriod/Description, one per line; 2 ANN = 24 months; the folder's EndDate
      ["2", "8", folderText, 24, "2028-06-30"],
      // the lot's period (6 MON, EndDate) without a text: the folder's text
      ["3", "8", folderText, 6, "2027-12-31"],
      // void result: no contract, no extensions
      ["1", "3", null, null, null],
    ]);
  });

  it("leaves them null without a ContractExtension, and reports an unreadable period", async () => {
    const none = await normalizeXml(
      craftedPage([{ n: 2, buyer, cpv: "72000000", results: [{ winner, value: 1000 }] }]),
    );
    expect(none.tender.awards.map((a) => [a.extensionText, a.extensionMonths, a.extensionEndDate])).toEqual([
      [null, null, null],
    ]);
    const bad = await normalizeXml(
      craftedPage([
        {
          n: 3,
          buyer,
          cpv: "72000000",
          extension: { options: "Prórroga", duration: { value: "12", unit: "HUR" }, endDate: "2028-02-30" },
          results: [{ winner, value: 1000 }],
        },
      ]),
    );
    expect(bad.tender.awards[0]).toMatchObject({
      extensionText: "Prórroga",
      extensionMonths: null,
      extensionEndDate: null,
    });
    expect(bad.errors).toEqual([
      { field: "project.extension.months", reason: 'unknown duration unit HUR: "12"' },
      { field: "project.extension.endDate", reason: 'not a calendar date: "2028-02-30"' },
    ]);
  });
});

describe("normalizePlacspEntry: tender rules", () => {
  it("a deadline without a time runs to 23:59:59 Madrid time", async () => {
    const deadline = (date: string): string =>
      entryXml(`<cac:TenderingProcess><cac:TenderSubmissionDeadlinePeriod><cbc:EndDate>${date}</cbc:EndDate>
        </cac:TenderSubmissionDeadlinePeriod></cac:TenderingProcess>`);
    expect((await normalizeXml(deadline("2025-07-01"))).tender.deadline).toBe("2025-07-01T21:59:59.000Z");
    expect((await normalizeXml(deadline("2025-01-15"))).tender.deadline).toBe("2025-01-15T22:59:59.000Z");
  });

  it("falls back to the participation-request deadline of two-stage procedures", async () => {
    const { tender } = await normalizeXml(
      entryXml(`<cac:TenderingProcess><cbc:ProcedureCode>2</cbc:ProcedureCode>
        <cac:ParticipationRequestReceptionPeriod><cbc:EndDate>2025-10-26</cbc:EndDate>
        <cbc:EndTime>02:30:00</cbc:EndTime></cac:ParticipationRequestReceptionPeriod>
        </cac:TenderingProcess>`),
    );
    // 02:30 happens twice on 2025-10-26 in Madrid: the first (+02:00) occurrence
    expect(tender.deadline).toBe("2025-10-26T00:30:00.000Z");
    expect([tender.sourceCodes.procedure, tender.procedureType]).toEqual(["2", "restricted"]);
  });

  it("reports an unreadable deadline", async () => {
    const { tender, errors } = await normalizeXml(
      entryXml(`<cac:TenderingProcess><cac:TenderSubmissionDeadlinePeriod>
        <cbc:EndDate>2025-07-01</cbc:EndDate>
        <cbc:EndTime>3 pm</cbc:EndTime></cac:TenderSubmissionDeadlinePeriod></cac:TenderingProcess>`),
    );
    expect(tender.deadline).toBeNull();
    expect(errors).toEqual([{ field: "deadline", reason: 'not a date and time: "2025-07-01 3 pm"' }]);
  });

  it("first publication ignores DOC_PIN and other media; current notice = latest issued", async () => {
    const notice = (code: string, media: string, ...dates: string[]): string =>
      `<cac-place-ext:ValidNoticeInfo><cbc-place-ext:NoticeTypeCode>${code}</cbc-place-ext:NoticeTypeCode>
        <cac-place-ext:AdditionalPublicationStatus>
          <cbc-place-ext:PublicationMediaName>${media}</cbc-place-ext:PublicationMediaName>
          ${dates
            .map(
              (d) => `<cac-place-ext:AdditionalPublicationDocumentReference>
            <cbc:IssueDate>${d}</cbc:IssueDate></cac-place-ext:AdditionalPublicationDocumentReference>`,
            )
            .join("")}
        </cac-place-ext:AdditionalPublicationStatus></cac-place-ext:ValidNoticeInfo>`;
    const { tender } = await normalizeXml(
      entryXml(
        notice("DOC_PIN", "Perfil del contratante", "2025-01-10") +
          notice("DOC_CN", "DOUE", "2025-02-01") +
          notice("DOC_CN", "PERFIL DEL CONTRATANTE", "2025-02-03", "2025-02-20") +
          notice("ANUL_CN", "Perfil del contratante", "2025-02-20"),
      ),
    );
    expect(tender.publicationDate).toBe("2025-02-03");
    // DOC_CN and its cancellation (ANUL_CN, "Anulación de Anuncio de Licitación") both issued 2025-02-20:
    // the cancellation is the later stage
    expect([tender.sourceCodes.notice, tender.noticeType]).toEqual(["ANUL_CN", "cancellation"]);
  });

  it("uses a ProcurementProject description when there is one, never the entry summary", async () => {
    const withDescription = await normalizeXml(
      entryXml(`<cac:ProcurementProject><cbc:Name>N</cbc:Name><cbc:Description> Mantenimiento
        de equipos </cbc:Description></cac:ProcurementProject>`),
    );
    expect(withDescription.tender.description).toBe("Mantenimiento\n        de equipos");
    const summaryOnly = await normalizeXml(
      entryXml(
        "",
        `<summary type="text">Id licitación: 1</summary><title>T</title>
        <updated>2025-03-01T10:00:00Z</updated>`,
      ),
    );
    expect(summaryOnly.tender.description).toBeNull();
    expect(summaryOnly.tender.title).toBe("T");
  });

  it("matches elements by namespace, whatever the prefixes", async () => {
    const xml = `<a:feed xmlns:a="http://www.w3.org/2005/Atom" xmlns:b="${CBC}" xmlns:c="${CAC}"
        xmlns:d="${CBC_EXT}" xmlns:e="${CAC_EXT}"><a:entry><a:id>https://x/2</a:id>
        <a:updated>2025-03-01T10:00:00.000+01:00</a:updated><e:ContractFolderStatus>
        <b:ContractFolderID>F-1</b:ContractFolderID>
        <d:ContractFolderStatusCode>PUB</d:ContractFolderStatusCode>
        <c:ProcurementProject><b:Name>Obra</b:Name></c:ProcurementProject>
        <b:UUID schemeName="OTHER">nope</b:UUID><b:UUID schemeName="TED">ted-uuid</b:UUID>
        </e:ContractFolderStatus></a:entry></a:feed>`;
    const { tender } = await normalizeXml(xml);
    expect(tender).toMatchObject({
      sourceRef: "https://x/2",
      folderId: "F-1",
      status: "open",
      sourceCodes: { status: "PUB" },
      title: "Obra",
      crossRef: "ted-uuid",
    });
  });
});
