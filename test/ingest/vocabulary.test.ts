import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { afterIngestRun } from "../../src/analytics/after-ingest.ts";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import {
  PLACSP_CONTRACT_TYPES,
  PLACSP_FOLDER_STATUSES,
  PLACSP_NOTICE_TYPES,
  PLACSP_PROCEDURE_TYPES,
  PLACSP_RESULT_OUTCOMES,
} from "../../src/ingest/vocabulary/placsp.ts";
import {
  TED_CONTRACT_TYPES,
  TED_FORM_TYPES,
  TED_NOTICE_TYPES,
  TED_PROCEDURE_TYPES,
  TED_RESULT_OUTCOMES,
} from "../../src/ingest/vocabulary/ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { AGGREGATED, buildPage, ingestPage, LIFECYCLE, splitFeed } from "../helpers/placsp.ts";
import { TED_FIXTURES } from "../helpers/ted-server.ts";
import { ingestFixtureDirectories, LOCAL_HTTP } from "../helpers/vocabulary.ts";

/**
 * One vocabulary across sources (issue 14, docs/vocabulary.md), through the real pipeline and the API: every
 * shared fixture of both sources, a PLACSP procedure and its linked TED notice, and unknown codes.
 */
const t = useTestDb();
const log = createLogger("silent");
const NOW = new Date("2026-03-01T12:00:00.000Z");

async function tenderAnswer(id: number) {
  const { app } = buildTestApp({ db: t.db, now: () => NOW });
  const { body } = await getJson(app, `/v1/tenders/${id}`, {
    "x-payment": await devToken(app, "GET /v1/tenders/:id"),
  });
  return body as {
    data: Record<string, unknown> & { awards: Record<string, unknown>[] };
    meta: { provenance: { source: string; source_ref: string }[] };
  };
}

describe("code_vocabulary (migration 0023) holds the mapping the writer uses", () => {
  it("row for row", async () => {
    const { rows } = await t.db.query<{ source: string; field: string; code: string; value: string | null }>(
      "SELECT source, field, code, value FROM code_vocabulary ORDER BY source, field, code",
    );
    const table = (source: string, field: string) =>
      Object.fromEntries(
        rows.filter((r) => r.source === source && r.field === field).map((r) => [r.code, r.value]),
      );
    expect(table("placsp", "notice")).toEqual(PLACSP_NOTICE_TYPES);
    expect(table("placsp", "procedure")).toEqual(PLACSP_PROCEDURE_TYPES);
    expect(table("placsp", "contract")).toEqual(PLACSP_CONTRACT_TYPES);
    expect(table("placsp", "status")).toEqual(PLACSP_FOLDER_STATUSES);
    expect(table("placsp", "result")).toEqual(PLACSP_RESULT_OUTCOMES);
    expect(table("ted", "notice")).toEqual(TED_NOTICE_TYPES);
    expect(table("ted", "form")).toEqual(TED_FORM_TYPES);
    expect(table("ted", "procedure")).toEqual(TED_PROCEDURE_TYPES);
    expect(table("ted", "contract")).toEqual(TED_CONTRACT_TYPES);
    // clos-nw needs its no-winner reason (not stored): no outcome from the code alone
    expect(table("ted", "result")).toEqual({ ...TED_RESULT_OUTCOMES, "clos-nw": null });
    expect(new Set(rows.map((r) => `${r.source}:${r.field}`)).size).toBe(10);
  });
});

interface Expected {
  notice_type: string | null;
  procedure_type: string | null;
  contract_type: string | null;
  /** As stored, and as GET /v1/tenders reads it at NOW (open with a past deadline reads evaluation). */
  status: string | null;
  answered_status: string | null;
  source_codes: Record<string, string>;
  /** [start_date, start_date_kind] of each award, in the answer's order. */
  starts: [string | null, string | null][];
}

const PLACSP = "https://contrataciondelestado.es/sindicacion/";
const ted = (notice: string, procedure: string | null, contract: string, legal: string) => ({
  notice,
  ...(procedure === null ? {} : { procedure }),
  contract,
  legal_basis: legal,
});

/**
 * Every tender the shared fixtures hold, with the values worked out from each notice (the codes in
 * `source_codes` are the ones in the XML, the common values the vocabulary's mapping of them).
 */
const EXPECTED: Record<string, Expected> = {
  // RTVE S-05669-2025: newest notice DOC_CAN_ADJ, ProcedureCode 1, TypeCode 1 (Suministros), status ADJ;
  // three lots awarded (result 8), no StartDate in any PlannedPeriod or TenderResult.
  [`${PLACSP}licitacionesPerfilContratante/18526649`]: {
    notice_type: "award-notice",
    procedure_type: "open",
    contract_type: "supplies",
    status: "awarded",
    answered_status: "awarded",
    source_codes: { notice: "DOC_CAN_ADJ", procedure: "1", contract: "1", status: "ADJ" },
    starts: [
      [null, null],
      [null, null],
      [null, null],
    ],
  },
  // Cádiz 2025/159: DOC_CN (issued with its DOC_CD), ProcedureCode 9 (Abierto simplificado), TypeCode 3, EV.
  [`${PLACSP}licitacionesPerfilContratante/18294555`]: {
    notice_type: "contract-notice",
    procedure_type: "simplified-open",
    contract_type: "works",
    status: "evaluation",
    answered_status: "evaluation",
    source_codes: { notice: "DOC_CN", procedure: "9", contract: "3", status: "EV" },
    starts: [],
  },
  // ISTAC 2/2025, newest of 11 versions: DOC_FORM (DOUE), ProcedureCode 1, TypeCode 2, RES with result 9
  // (formalizado) and TenderResult/StartDate 2025-08-13 (the planned 2025-07-15 is superseded).
  [`${PLACSP}licitacionesPerfilContratante/17165996`]: {
    notice_type: "contract-signed",
    procedure_type: "open",
    contract_type: "services",
    status: "signed",
    answered_status: "signed",
    source_codes: { notice: "DOC_FORM", procedure: "1", contract: "2", status: "RES" },
    starts: [["2025-08-13", "actual"]],
  },
  // AMB 905451/26 (feed 1044): DOC_CN, ProcedureCode 1, TypeCode 2, EV.
  [`${PLACSP}PlataformasAgregadasSinMenores/20283724`]: {
    notice_type: "contract-notice",
    procedure_type: "open",
    contract_type: "services",
    status: "evaluation",
    answered_status: "evaluation",
    source_codes: { notice: "DOC_CN", procedure: "1", contract: "2", status: "EV" },
    starts: [],
  },
  // 153579-2020 is stored once: its OP conversion to eForms is published an hour later (+01:00 vs CEST) than
  // the R2.0.9 original, so its codes are the row's. Three lots awarded with DATE_CONCLUSION_CONTRACT.
  "153579-2020": {
    notice_type: "award-notice",
    procedure_type: "open",
    contract_type: "services",
    status: "signed",
    answered_status: "signed",
    source_codes: ted("can-standard", "open", "services", "32014L0024"),
    starts: [
      [null, null],
      [null, null],
      [null, null],
    ],
  },
  // NLD: selec-w, CON-0001 with only an AwardDate (no conclusion); LOT-0000 PlannedPeriod StartDate 2024-04-01.
  "191536-2024": {
    notice_type: "award-notice",
    procedure_type: "open",
    contract_type: "works",
    status: "awarded",
    answered_status: "awarded",
    source_codes: ted("can-standard", "open", "works", "32014L0024"),
    starts: [["2024-04-01", "planned"]],
  },
  // BEL: one lot, clos-nw, DecisionReasonCode all-rej.
  "607986-2024": {
    notice_type: "award-notice",
    procedure_type: "open",
    contract_type: "services",
    status: "deserted",
    answered_status: "deserted",
    source_codes: ted("can-standard", "open", "services", "32014L0024"),
    starts: [[null, null]],
  },
  // BEL ICT framework: five lots selec-w with contracts concluded 2024-10-07, lot 5 clos-nw (one-admis).
  "611835-2024": {
    notice_type: "award-notice",
    procedure_type: "open",
    contract_type: "services",
    status: "signed",
    answered_status: "signed",
    source_codes: ted("can-standard", "open", "services", "32014L0024"),
    starts: Array.from({ length: 6 }, () => [null, null] as [null, null]),
  },
  // ESP: subtype 19 concession (RegulatoryDomain 32014L0023), nature services, no ProcedureCode, no deadline.
  "402363-2023": {
    notice_type: "contract-notice",
    procedure_type: null,
    contract_type: "concession",
    status: "open",
    answered_status: "open",
    source_codes: { notice: "cn-standard", contract: "services", legal_basis: "32014L0023" },
    starts: [],
  },
  // GRC: open, supplies; deadline 2023-09-20, long past at NOW.
  "497181-2023": {
    notice_type: "contract-notice",
    procedure_type: "open",
    contract_type: "supplies",
    status: "open",
    answered_status: "evaluation",
    source_codes: ted("cn-standard", "open", "supplies", "32014L0024"),
    starts: [],
  },
  // FIN defence (RegulatoryDomain 32009L0081): restricted, services; requests due 2023-11-10.
  "615708-2023": {
    notice_type: "contract-notice",
    procedure_type: "restricted",
    contract_type: "services",
    status: "open",
    answered_status: "evaluation",
    source_codes: ted("cn-standard", "restricted", "services", "32009L0081"),
    starts: [],
  },
  // SDK example (unpublished): two lots selec-w, contracts concluded, PlannedPeriod StartDate 2019-09-01.
  "df45f4d1-2208-47cb-bc7a-9c7edcf8d2b8-01": {
    notice_type: "award-notice",
    procedure_type: "open",
    contract_type: "services",
    status: "signed",
    answered_status: "signed",
    source_codes: ted("can-standard", "open", "services", "32014L0024"),
    starts: [
      ["2019-09-01", "planned"],
      ["2019-09-01", "planned"],
    ],
  },
  // GBR R2.0.9 F02: PT_RESTRICTED, CTYPE SERVICES; tenders due 2020-06-05.
  "209416-2020": {
    notice_type: "contract-notice",
    procedure_type: "restricted",
    contract_type: "services",
    status: "open",
    answered_status: "evaluation",
    source_codes: {
      notice: "F02_2014",
      procedure: "PT_RESTRICTED",
      contract: "SERVICES",
      legal_basis: "32014L0024",
    },
    starts: [],
  },
};

describe("every shared fixture, ingested from both sources", () => {
  let stored: (Record<string, unknown> & { id: number; source_ref: string })[] = [];

  beforeAll(async () => {
    await truncateAll(t.db);
    await ingestFixtureDirectories({ db: t.db, log, now: () => NOW });
    stored = (
      await t.db.query<Record<string, unknown> & { id: number; source_ref: string }>(
        `SELECT id, source, source_ref, notice_type, procedure_type, contract_type, status, source_codes,
                normalization_version
           FROM tenders ORDER BY source, source_ref`,
      )
    ).rows;
  }, 120_000);

  // A new shared fixture fails here until its expected values are added to EXPECTED.
  it("stores every fixture's tender, none other", () => {
    expect(stored.map((row) => row.source_ref).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(new Set(stored.map((row) => row.source))).toEqual(new Set(["placsp", "ted"]));
    expect(stored.every((row) => row.normalization_version === 2)).toBe(true);
  });

  it("records no field error: every code of every fixture is in its list", async () => {
    const { rows } = await t.db.query("SELECT entry_ref, reason FROM ingest_errors");
    expect(rows).toEqual([]);
  });

  it.each(Object.entries(EXPECTED))(
    "%s: stored and answered in the common vocabulary",
    async (ref, expected) => {
      const row = stored.find((r) => r.source_ref === ref);
      expect(row).toMatchObject({
        notice_type: expected.notice_type,
        procedure_type: expected.procedure_type,
        contract_type: expected.contract_type,
        status: expected.status,
        source_codes: expected.source_codes,
      });
      const { data } = await tenderAnswer(row?.id ?? 0);
      expect(data).toMatchObject({
        notice_type: expected.notice_type,
        procedure_type: expected.procedure_type,
        contract_type: expected.contract_type,
        status: expected.answered_status,
        source_codes: expected.source_codes,
      });
      expect(data.awards.map((a) => [a.start_date, a.start_date_kind])).toEqual(expected.starts);
    },
  );
});

const ISTAC = `${PLACSP}licitacionesPerfilContratante/17165996`;
const ISTAC_URL =
  "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=5Q16zvBfrXDE6P%2FuLemXRw%3D%3D";

describe("a PLACSP procedure and its TED notice speak the same vocabulary", () => {
  it("report the same procedure_type and contract type, each with its own source codes", async () => {
    await truncateAll(t.db);
    await ingestPage(t.db, { file: LIFECYCLE });
    // A TED award notice of the same procedure: the real NLD notice made ISTAC's (its procedure's services, its
    // PLACSP page linked from the notice, its own publication number). Read through the TED pipeline.
    const xml = readFileSync(join(TED_FIXTURES, "eforms-can-00191536-2024-NLD-single-lot.xml"), "utf8")
      .replaceAll('listName="contract-nature">works', 'listName="contract-nature">services')
      .replace("00191536-2024", "00999001-2025")
      .replace(
        "<cac:ProcurementProject>",
        `<cac:ProcurementProject><cbc:Note>${ISTAC_URL.replaceAll("&", "&amp;")}</cbc:Note>`,
      );
    await ingestOneTedNotice("00999001_2025.xml", xml);
    await afterIngestRun({ db: t.db, log, now: () => NOW });
    const { rows } = await t.db.query<{
      source: string;
      source_ref: string;
      id: number;
      linked_to: number | null;
      rule: string | null;
    }>(
      `SELECT t.source, t.source_ref, t.id, t.linked_to, l.rule
         FROM tenders t LEFT JOIN tender_links l ON l.tender_id = t.id
        ORDER BY t.source`,
    );
    const [placsp, tedRow] = rows;
    expect(placsp).toMatchObject({ source: "placsp", source_ref: ISTAC });
    expect(tedRow).toMatchObject({ source: "ted", linked_to: placsp?.id, rule: "reference" });

    const placspAnswer = (await tenderAnswer(placsp?.id ?? 0)).data;
    const tedAnswer = await tenderAnswer(tedRow?.id ?? 0);
    // ProcedureCode 1 and BT-105 open; TypeCode 2 and BT-23 services
    expect([placspAnswer.procedure_type, placspAnswer.contract_type]).toEqual(["open", "services"]);
    expect([tedAnswer.data.procedure_type, tedAnswer.data.contract_type]).toEqual([
      placspAnswer.procedure_type,
      placspAnswer.contract_type,
    ]);
    expect(placspAnswer.source_codes).toMatchObject({ procedure: "1", contract: "2" });
    expect(tedAnswer.data.source_codes).toMatchObject({ procedure: "open", contract: "services" });
    // both award stages, each in its own source's words: formalizado (PLACSP), an award notice (TED)
    expect([placspAnswer.notice_type, tedAnswer.data.notice_type]).toEqual([
      "contract-signed",
      "award-notice",
    ]);
    expect(tedAnswer.meta.provenance.map((p) => p.source).sort()).toEqual(["placsp", "ted"]);
  });
});

describe("an unknown code", () => {
  it("is kept verbatim in source_codes, leaves the common field null and is a field error of the run", async () => {
    await truncateAll(t.db);
    const { header, entries } = splitFeed(AGGREGATED);
    const entry = (entries[0] ?? "")
      .replace(/(<cbc:ProcedureCode[^>]*>)1</, "$114<")
      .replace(/(<cbc-place-ext:NoticeTypeCode[^>]*>)DOC_CN</, "$1DOC_CN_V2<");
    const { run } = await ingestPage(t.db, { xml: buildPage(header, [entry]) }, { feed: "1044" });

    const { rows: tenders } = await t.db.query(
      "SELECT source_ref, notice_type, procedure_type, contract_type, status, source_codes FROM tenders",
    );
    expect(tenders).toEqual([
      {
        source_ref: `${PLACSP}PlataformasAgregadasSinMenores/20283724`,
        notice_type: null,
        procedure_type: null,
        // the known codes of the same entry are mapped as usual
        contract_type: "services",
        status: "evaluation",
        source_codes: { notice: "DOC_CN_V2", procedure: "14", contract: "2", status: "EV" },
      },
    ]);
    const { rows: errors } = await t.db.query(
      "SELECT entry_ref, reason FROM ingest_errors WHERE run_id = $1 ORDER BY reason",
      [run.id],
    );
    expect(errors).toEqual([
      {
        entry_ref: `${PLACSP}PlataformasAgregadasSinMenores/20283724`,
        reason: 'noticeType: not a code of the PLACSP TenderingNoticeTypeCode list: "DOC_CN_V2"',
      },
      {
        entry_ref: `${PLACSP}PlataformasAgregadasSinMenores/20283724`,
        reason: 'procedureType: not a code of the PLACSP SyndicationTenderingProcessCode list: "14"',
      },
    ]);
    const { rows: runs } = await t.db.query("SELECT errors FROM ingest_runs WHERE id = $1", [run.id]);
    expect(runs).toEqual([{ errors: 2 }]);
  });

  it("does the same for a TED notice", async () => {
    await truncateAll(t.db);
    const xml = readFileSync(
      join(TED_FIXTURES, "eforms-cn-00497181-2023-GRC-cpv30-framework.xml"),
      "utf8",
    ).replace(
      'listName="procurement-procedure-type">open<',
      'listName="procurement-procedure-type">auction<',
    );
    expect(xml).toContain(">auction<");
    const summary = await ingestOneTedNotice("00497181_2023.xml", xml);
    const { rows } = await t.db.query(
      "SELECT source_ref, procedure_type, contract_type, source_codes->>'procedure' AS code FROM tenders",
    );
    expect(rows).toEqual([
      { source_ref: "497181-2023", procedure_type: null, contract_type: "supplies", code: "auction" },
    ]);
    const { rows: errors } = await t.db.query(
      "SELECT entry_ref, reason FROM ingest_errors WHERE run_id = $1",
      [summary.runId],
    );
    expect(errors).toEqual([
      {
        entry_ref: "497181-2023",
        reason: 'procedureType: not a code of the eForms procurement-procedure-type list: "auction"',
      },
    ]);
  });
});

/** One notice file, through the TED pipeline (a directory of one). */
async function ingestOneTedNotice(name: string, xml: string): Promise<{ runId: number }> {
  const dir = await mkdtemp(join(tmpdir(), "pi-vocabulary-"));
  try {
    await writeFile(join(dir, name), xml);
    return await ingestTed(
      { db: t.db, log, now: () => NOW },
      {
        source: dir,
        since: null,
        maxNotices: null,
        batchSize: 10,
        http: LOCAL_HTTP,
        query: { apiQuery: null, cpvPrefixes: [], countries: [] },
        lookbackDays: 30,
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
