import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import type { NormalizedParty, NormalizeResult } from "../model.ts";
import { readTedNotice, TedNoticeError } from "./detect.ts";
import { normalizeR209Notice } from "./r209.ts";

/**
 * The legacy R2.0.9 fixtures and a few hand-written R2.0.9 documents. Expected values are read by hand
 * from the XML (`F` = the FORM_SECTION form, `CDS` = CODED_DATA_SECTION).
 */

const FIXTURES = `${SHARED_DIR}fixtures/ted/`;
const R209 = "http://publications.europa.eu/resource/schema/ted/R2.0.9/publication";

async function* literal(xml: string): AsyncGenerator<string> {
  yield xml;
}

async function normalizeFile(file: string): Promise<NormalizeResult> {
  return normalizeR209Notice(await readTedNotice(createReadStream(`${FIXTURES}${file}`)));
}

async function normalizeXml(xml: string): Promise<NormalizeResult> {
  return normalizeR209Notice(await readTedNotice(literal(xml)));
}

function spanish(name: string, nif: string): NormalizedParty {
  return { name, nif, rawId: nif, idScheme: null, country: "ES" };
}

describe("R2.0.9 F03 153579-2020: ESP framework with comma-joined winners", async () => {
  const { tender, errors } = await normalizeFile("ted-r209-f03-153579-2020-ESP-framework.xml");

  it("reads the notice", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      source: "ted",
      // TED_EXPORT/@DOC_ID 153579-2020 (NO_DOC_OJS 2020/S 064-153579)
      sourceRef: "153579-2020",
      feed: null,
      // F/OBJECT_CONTRACT/REFERENCE_NUMBER
      folderId: "EC 2020 2",
      // CDS/REF_OJS/DATE_PUB 20200331, 00:00 in Luxembourg (CEST, +02:00)
      upstreamUpdated: "2020-03-30T22:00:00.000Z",
      publicationDate: "2020-03-31",
      // F03_2014 → can-standard (OP's mapping: eForms subtype 29) → an award notice
      noticeType: "award-notice",
      // OBJECT_CONTRACT/TITLE/P
      title:
        "Acuerdo Marco realización controles regularidad de operaciones financiadas total o parcialmente " +
        "con fondos comunitarios y/o fondos propios, así como realización controles centros educativos",
      // OBJECT_CONTRACT/SHORT_DESCR: two <P>, joined with a space
      description:
        "Acuerdo Marco para la realización de controles de regularidad de operaciones financiadas total o " +
        "parcialmente con fondos comunitarios y/o fondos propios, así como para la realización de los " +
        "controles sobre las justificaciones económicas presentadas por los centros educativos públicos de " +
        "la Generalidad de Cataluña en régimen de autonomía económica.",
      // CPV_MAIN 79212000; each OBJECT_DESCR CPV_ADDITIONAL 79212000
      cpvMain: "79212000",
      cpvAll: ["79212000"],
      // TYPE_CONTRACT CTYPE=SERVICES; PROCEDURE/PT_OPEN
      contractType: "services",
      procedureType: "open",
      // the R2.0.9 originals; LEGAL_BASIS VALUE=32014L0024
      sourceCodes: {
        notice: "F03_2014",
        procedure: "PT_OPEN",
        contract: "SERVICES",
        legal_basis: "32014L0024",
      },
      deadline: null,
      // F03 has no VAL_ESTIMATED_TOTAL; OBJECT_CONTRACT/VAL_TOTAL 9642953.44 is the framework total
      estimatedValue: null,
      currency: null,
      // OBJECT_DESCR[1]/n2016:NUTS CODE=ES51
      nuts: "ES51",
      url: "https://ted.europa.eu/en/notice/-/detail/153579-2020",
      // every AWARD_CONTRACT is AWARDED_CONTRACT with a DATE_CONCLUSION_CONTRACT: signed
      status: "signed",
      // PROCEDURE/FRAMEWORK
      framework: true,
      durationMonths: null,
      crossRef: null,
    });
  });

  it("reads the buyer", () => {
    expect(tender.buyer).toEqual({
      // CONTRACTING_BODY/ADDRESS_CONTRACTING_BODY
      name:
        "Secretario General del Departamento de la Vicepresidencia y de Economía y Hacienda de la " +
        "Generalidad de Cataluña",
      // no NATIONALID
      nif: null,
      rawId: null,
      idScheme: null,
      country: "ES",
      dir3: [],
      platformId: null,
      nuts: "ES51",
      // CA_TYPE_OTHER "Departamento de Comunidad Autónoma" is free text, not a CA_TYPE code
      orgType: null,
    });
  });

  it("splits each comma-joined CONTRACTOR into the members of one group", () => {
    // AWARD_CONTRACT ITEM=1 / ADDRESS_CONTRACTOR: OFFICIALNAME with 6 companies, NATIONALID with 6 NIFs
    expect(tender.awards[0]).toEqual({
      lot: "1",
      resultCode: "selec-w",
      // DATE_CONCLUSION_CONTRACT
      awardDate: "2020-03-18",
      winner: {
        name:
          "Ernst & Young, S. L., Faura-Casas Auditors Consultors, S. L., Gesem Auditores y Consultores, " +
          "S. L. P., GNC Assurance & Advisory, S. L., Auren Auditores SP, S. L. P., KMPG Auditores, S. L.",
        nif: null,
        rawId: "B78970506, B58671710, B97701312, B14701908, B87352357, B78510153",
        idScheme: null,
        country: "ES",
        isJointVenture: true,
        members: [
          spanish("Ernst & Young, S. L.", "B78970506"),
          spanish("Faura-Casas Auditors Consultors, S. L.", "B58671710"),
          spanish("Gesem Auditores y Consultores, S. L. P.", "B97701312"),
          spanish("GNC Assurance & Advisory, S. L.", "B14701908"),
          spanish("Auren Auditores SP, S. L. P.", "B87352357"),
          // "KMPG" (sic) in lot 1, "KPMG" in lots 2 and 3: same NIF
          spanish("KMPG Auditores, S. L.", "B78510153"),
        ],
      },
      // VALUES/VAL_TOTAL CURRENCY=EUR 7834899.64: the framework ceiling of the lot
      value: 7834899.64,
      valuePayable: null,
      currency: "EUR",
      // TENDERS/NB_TENDERS_RECEIVED
      biddersCount: 7,
      framework: true,
      valueIsCeiling: true,
      durationMonths: null,
      startDate: null,
      startDateKind: null,
      endDate: null,
      // OBJECT_DESCR ITEM 1: NO_OPTIONS, and F03 has no renewal
      extensionText: null,
      extensionMonths: null,
      extensionEndDate: null,
      contractSigned: true,
      cpv: "79212000",
    });
  });

  it("reads lots 2 and 3 with their four-company groups", () => {
    const fourMembers = [
      spanish("Ernst & Young, S. L.", "B78970506"),
      spanish("Faura-Casas Auditors Consultors, S. L.", "B58671710"),
      spanish("Auren Auditores SP, S. L. P.", "B87352357"),
      spanish("KPMG Auditores, S. L.", "B78510153"),
    ];
    const group = {
      name:
        "Ernst & Young, S. L., Faura-Casas Auditors Consultors, S. L., Auren Auditores SP, S. L. P., " +
        "KPMG Auditores, S. L.",
      nif: null,
      rawId: "B78970506, B58671710, B87352357, B78510153",
      idScheme: null,
      country: "ES",
      isJointVenture: true,
      members: fourMembers,
    };
    expect(tender.awards.slice(1).map((a) => [a.lot, a.value, a.biddersCount, a.winner])).toEqual([
      // AWARD_CONTRACT ITEM=2: VAL_TOTAL 1205369.20, NB_TENDERS_RECEIVED 4
      ["2", 1205369.2, 4, group],
      // AWARD_CONTRACT ITEM=3: VAL_TOTAL 602684.60, NB_TENDERS_RECEIVED 4
      ["3", 602684.6, 4, group],
    ]);
  });
});

describe("R2.0.9 F02 209416-2020: GBR ICT contract notice", async () => {
  const { tender, errors } = await normalizeFile("ted-r209-f02-209416-2020-GBR-cpv72.xml");

  it("reads the notice", () => {
    expect(errors).toEqual([]);
    expect(tender).toMatchObject({
      sourceRef: "209416-2020",
      folderId: null,
      // DATE_PUB 20200505, 00:00 CEST
      upstreamUpdated: "2020-05-04T22:00:00.000Z",
      publicationDate: "2020-05-05",
      // F02_2014 → cn-standard → a contract notice, open for competition
      noticeType: "contract-notice",
      status: "open",
      sourceCodes: {
        notice: "F02_2014",
        procedure: "PT_RESTRICTED",
        contract: "SERVICES",
        legal_basis: "32014L0024",
      },
      title: "Information and Communications Technology Services",
      // CPV_MAIN 72600000; lot 1 CPV_ADDITIONAL 72500000, lot 2 64200000
      cpvMain: "72600000",
      cpvAll: ["72600000", "72500000", "64200000"],
      contractType: "services",
      // PROCEDURE/PT_RESTRICTED
      procedureType: "restricted",
      // DATE_RECEIPT_TENDERS 2020-06-05 + TIME_RECEIPT_TENDERS 12:00, buyer's local time (London, BST)
      deadline: "2020-06-05T11:00:00.000Z",
      // OBJECT_CONTRACT/VAL_ESTIMATED_TOTAL CURRENCY=GBP 1530376.00
      estimatedValue: 1530376,
      currency: "GBP",
      // OBJECT_DESCR/n2016:NUTS CODE=UK (a NUTS code, kept as published)
      nuts: "UK",
      url: "https://ted.europa.eu/en/notice/-/detail/209416-2020",
      framework: false,
      // both lots DURATION TYPE=MONTH 48
      durationMonths: 48,
      awards: [],
      crossRef: null,
    });
    expect(tender.description).toMatch(/^English Institute of Sport \(‘the EIS’\) is seeking to appoint /);
    expect(tender.buyer).toEqual({
      name: "English Institute of Sport Ltd",
      nif: null,
      rawId: null,
      idScheme: null,
      // COUNTRY VALUE=UK → ISO GB
      country: "GB",
      dir3: [],
      platformId: null,
      nuts: "UK",
      orgType: "BODY_PUBLIC",
    });
  });
});

/** A minimal R2.0.9 F03 around `form` (the inside of F03_2014), plus extra forms (translations). */
function f03(form: string, extraForms = "", docId = "001234-2019"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<TED_EXPORT xmlns="${R209}" xmlns:n2016="http://publications.europa.eu/resource/schema/ted/2016/nuts"
    DOC_ID="${docId}">
  <CODED_DATA_SECTION>
    <REF_OJS><DATE_PUB>20190115</DATE_PUB></REF_OJS>
    <NOTICE_DATA><NO_DOC_OJS>2019/S 010-001234</NO_DOC_OJS></NOTICE_DATA>
  </CODED_DATA_SECTION>
  <FORM_SECTION>
    <F03_2014 CATEGORY="ORIGINAL" FORM="F03" LG="FR">${form}</F03_2014>
    ${extraForms}
  </FORM_SECTION>
</TED_EXPORT>`;
}

const FR_OBJECT = `
  <CONTRACTING_BODY><ADDRESS_CONTRACTING_BODY>
    <OFFICIALNAME>Commission européenne</OFFICIALNAME><COUNTRY VALUE="BE"/>
  </ADDRESS_CONTRACTING_BODY></CONTRACTING_BODY>
  <OBJECT_CONTRACT><TITLE><P>Services informatiques</P></TITLE>
    <CPV_MAIN><CPV_CODE CODE="72000000"/></CPV_MAIN>
    <TYPE_CONTRACT CTYPE="SERVICES"/></OBJECT_CONTRACT>
  <PROCEDURE><PT_OPEN/></PROCEDURE>`;

describe("R2.0.9 hand-written documents", () => {
  it("makes one group of several CONTRACTORs (AWARDED_TO_GROUP), the first as lead", async () => {
    const { tender, errors } = await normalizeXml(
      f03(`${FR_OBJECT}
      <AWARD_CONTRACT ITEM="1"><AWARDED_CONTRACT><CONTRACTORS><AWARDED_TO_GROUP/>
        <CONTRACTOR><ADDRESS_CONTRACTOR><OFFICIALNAME>Alfa Sistemas, S.L.</OFFICIALNAME>
          <NATIONALID>ES B12345674</NATIONALID><COUNTRY VALUE="ES"/></ADDRESS_CONTRACTOR></CONTRACTOR>
        <CONTRACTOR><ADDRESS_CONTRACTOR><OFFICIALNAME>Beta Conseil SARL</OFFICIALNAME>
          <NATIONALID>FR40303265045</NATIONALID><COUNTRY VALUE="FR"/></ADDRESS_CONTRACTOR></CONTRACTOR>
      </CONTRACTORS><VALUES><VAL_TOTAL CURRENCY="EUR">100000</VAL_TOTAL></VALUES></AWARDED_CONTRACT>
      </AWARD_CONTRACT>`),
    );
    expect(errors).toEqual([]);
    expect(tender.awards[0]?.winner).toEqual({
      // no published group name: the members' names joined, in document order
      name: "Alfa Sistemas, S.L., Beta Conseil SARL",
      nif: null,
      rawId: null,
      idScheme: null,
      // the lead (first) member's country
      country: "ES",
      isJointVenture: true,
      members: [
        // "ES B12345674" validates as the Spanish NIF B12345674
        {
          name: "Alfa Sistemas, S.L.",
          nif: "B12345674",
          rawId: "ES B12345674",
          idScheme: null,
          country: "ES",
        },
        { name: "Beta Conseil SARL", nif: null, rawId: "FR40303265045", idScheme: null, country: "FR" },
      ],
    });
    // no FRAMEWORK: the value is plain spend
    expect(tender.awards[0]).toMatchObject({ value: 100000, valueIsCeiling: false, framework: false });
  });

  it("keeps NO_AWARDED_CONTRACT as an award without winner (clos-nw)", async () => {
    const { tender, errors } = await normalizeXml(
      f03(`${FR_OBJECT}
      <AWARD_CONTRACT ITEM="1"><LOT_NO>2</LOT_NO><NO_AWARDED_CONTRACT><PROCUREMENT_UNSUCCESSFUL/>
      </NO_AWARDED_CONTRACT></AWARD_CONTRACT>`),
    );
    expect(tender.awards).toEqual([
      {
        lot: "2",
        resultCode: "clos-nw",
        awardDate: null,
        winner: null,
        value: null,
        valuePayable: null,
        currency: null,
        biddersCount: null,
        framework: false,
        valueIsCeiling: false,
        durationMonths: null,
        startDate: null,
        startDateKind: null,
        endDate: null,
        // NO_AWARDED_CONTRACT: no extensions
        extensionText: null,
        extensionMonths: null,
        extensionEndDate: null,
        contractSigned: false,
        cpv: "72000000",
      },
    ]);
    expect(errors).toEqual([]);
    // PROCUREMENT_UNSUCCESSFUL: no (valid) tender, the lot is deserted
    expect(tender.status).toBe("deserted");
    const discontinued = await normalizeXml(
      f03(`${FR_OBJECT}
      <AWARD_CONTRACT ITEM="1"><LOT_NO>2</LOT_NO><NO_AWARDED_CONTRACT><PROCUREMENT_DISCONTINUED/>
      </NO_AWARDED_CONTRACT></AWARD_CONTRACT>`),
    );
    // PROCUREMENT_DISCONTINUED: the buyer stopped the procedure
    expect(discontinued.tender.status).toBe("cancelled");
  });

  it("keeps a procedure element without an eForms equivalent as published, with a FieldError", async () => {
    // OP's converter maps PT_INVOLVING_NEGOTIATION (light-regime forms) to "UNKNOWN": nothing to map it to.
    const { tender, errors } = await normalizeXml(
      f03(FR_OBJECT.replace("<PT_OPEN/>", "<PT_INVOLVING_NEGOTIATION/>")),
    );
    expect(tender.procedureType).toBeNull();
    expect(tender.sourceCodes).toEqual({
      notice: "F03_2014",
      procedure: "PT_INVOLVING_NEGOTIATION",
      contract: "SERVICES",
    });
    expect(errors).toEqual([
      {
        field: "procedureType",
        reason: 'not a code of the R2.0.9 PROCEDURE/PT_* elements: "PT_INVOLVING_NEGOTIATION"',
      },
    ]);
  });

  it("reads texts from the Spanish translation and everything else from the original", async () => {
    const { tender } = await normalizeXml(
      f03(
        FR_OBJECT,
        `<F03_2014 CATEGORY="TRANSLATION" FORM="F03" LG="EN">
         <OBJECT_CONTRACT><TITLE><P>IT services</P></TITLE>
         </OBJECT_CONTRACT></F03_2014>
         <F03_2014 CATEGORY="TRANSLATION" FORM="F03" LG="ES">
         <OBJECT_CONTRACT><TITLE><P>Servicios TI</P></TITLE>
         <CPV_MAIN><CPV_CODE CODE="30000000"/></CPV_MAIN></OBJECT_CONTRACT></F03_2014>`,
      ),
    );
    expect(tender.title).toBe("Servicios TI");
    expect(tender.cpvMain).toBe("72000000");
    expect(tender.buyer?.name).toBe("Commission européenne");
  });

  it("reports malformed values and leaves them null", async () => {
    const { tender, errors } = await normalizeXml(
      f03(`${FR_OBJECT}
      <AWARD_CONTRACT ITEM="1"><AWARDED_CONTRACT>
        <DATE_CONCLUSION_CONTRACT>2019-02-30</DATE_CONCLUSION_CONTRACT>
        <TENDERS><NB_TENDERS_RECEIVED>seven</NB_TENDERS_RECEIVED></TENDERS>
        <VALUES><VAL_TOTAL CURRENCY="EUR">1.234,56</VAL_TOTAL></VALUES></AWARDED_CONTRACT></AWARD_CONTRACT>`),
    );
    expect(tender.awards[0]).toMatchObject({
      awardDate: null,
      biddersCount: null,
      value: null,
      currency: null,
    });
    expect(errors).toEqual([
      { field: "awards[1].value", reason: 'not a decimal amount: "1.234,56"' },
      { field: "awards[1].awardDate", reason: 'not a calendar date: "2019-02-30"' },
      { field: "awards[1].biddersCount", reason: 'not a non-negative integer: "seven"' },
    ]);
  });

  it("reads a lot's OPTIONS_DESCR and RENEWAL_DESCR as its awards' extension text, in the text language", async () => {
    const object = (lg: string, options: string, renewal: string): string => `
      <OBJECT_CONTRACT><TITLE><P>T ${lg}</P></TITLE><CPV_MAIN><CPV_CODE CODE="72000000"/></CPV_MAIN>
        <TYPE_CONTRACT CTYPE="SERVICES"/>
        <OBJECT_DESCR ITEM="1"><LOT_NO>1</LOT_NO><OPTIONS/>
          <OPTIONS_DESCR><P>${options}</P><P>(${lg})</P></OPTIONS_DESCR>
          <RENEWAL/><RENEWAL_DESCR><P>${renewal}</P></RENEWAL_DESCR></OBJECT_DESCR>
        <OBJECT_DESCR ITEM="2"><LOT_NO>2</LOT_NO><NO_OPTIONS/><NO_RENEWAL/></OBJECT_DESCR>
      </OBJECT_CONTRACT>`;
    const awards = `
      <AWARD_CONTRACT ITEM="1"><LOT_NO>1</LOT_NO><AWARDED_CONTRACT>
        <DATE_CONCLUSION_CONTRACT>2019-01-10</DATE_CONCLUSION_CONTRACT></AWARDED_CONTRACT></AWARD_CONTRACT>
      <AWARD_CONTRACT ITEM="2"><LOT_NO>2</LOT_NO><AWARDED_CONTRACT>
        <DATE_CONCLUSION_CONTRACT>2019-01-10</DATE_CONCLUSION_CONTRACT></AWARDED_CONTRACT></AWARD_CONTRACT>
      <AWARD_CONTRACT ITEM="3"><LOT_NO>1</LOT_NO><NO_AWARDED_CONTRACT><PROCUREMENT_UNSUCCESSFUL/>
      </NO_AWARDED_CONTRACT></AWARD_CONTRACT>`;
    const { tender, errors } = await normalizeXml(
      f03(
        `${FR_OBJECT.replace(/<OBJECT_CONTRACT>[\s\S]*<\/OBJECT_CONTRACT>/, "")}
        ${object("FR", "Services supplémentaires", "Reconductible une fois")}${awards}`,
        `<F03_2014 CATEGORY="TRANSLATION" FORM="F03" LG="ES">
        ${object("ES", "Servicios adicionales", "Prorrogable una vez")}</F03_2014>`,
      ),
    );
    expect(errors).toEqual([]);
    expect(
      tender.awards.map((a) => [a.lot, a.resultCode, a.extensionText, a.extensionMonths, a.extensionEndDate]),
    ).toEqual([
      // paragraphs joined with a space, OPTIONS_DESCR then RENEWAL_DESCR one per line, from the ES translation;
      // R2.0.9 has no structured extension period or end
      ["1", "selec-w", "Servicios adicionales (ES)\nProrrogable una vez", null, null],
      // NO_OPTIONS / NO_RENEWAL
      ["2", "selec-w", null, null, null],
      // NO_AWARDED_CONTRACT: no contract, no extensions
      ["1", "clos-nw", null, null, null],
    ]);
  });

  it("takes NO_DOC_OJS when DOC_ID is missing", async () => {
    const { tender } = await normalizeXml(f03(FR_OBJECT).replace(' DOC_ID="001234-2019"', ""));
    expect(tender.sourceRef).toBe("1234-2019");
  });

  it("rejects forms it does not read", async () => {
    const xml = f03(FR_OBJECT).replaceAll("F03_2014", "F14_2014");
    await expect(normalizeXml(xml)).rejects.toThrow(TedNoticeError);
    await expect(normalizeXml(xml)).rejects.toThrow(/unsupported R2\.0\.9 form F14_2014/);
  });
});
