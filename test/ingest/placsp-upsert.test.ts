import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { startParseThread } from "../../src/ingest/placsp/parse-thread.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import {
  AGGREGATED,
  buildPage,
  canonicalDump,
  ingestPage,
  LIFECYCLE,
  splitFeed,
  TWO_ENTRIES,
  tombstoneXml,
} from "../helpers/placsp.ts";

const t = useTestDb();
beforeEach(async () => {
  await truncateAll(t.db);
});

const RTVE = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649";
const CADIZ = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18294555";
const ISTAC = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996";
const AMB = "https://contrataciondelestado.es/sindicacion/PlataformasAgregadasSinMenores/20283724";

async function count(db: Db, table: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? -1;
}

describe("the 2-entry licitaciones page", () => {
  it("stores both tenders, the 3-lot award with its winner, buyers and the tombstone", async () => {
    const { run } = await ingestPage(t.db, { file: TWO_ENTRIES });
    expect(run.totals).toEqual({
      pages: 1,
      entriesNew: 2,
      entriesUpdated: 0,
      entriesUnchanged: 0,
      errors: 0,
    });

    const { rows: tenders } = await t.db.query(
      `SELECT source_ref, folder_id, status, source_codes->>'status' AS status_code,
              buyer_id IS NOT NULL AS has_buyer
         FROM tenders ORDER BY source_ref`,
    );
    expect(tenders).toEqual([
      {
        source_ref: CADIZ,
        folder_id: expect.any(String),
        status: "evaluation",
        status_code: "EV",
        has_buyer: true,
      },
      { source_ref: RTVE, folder_id: "S-05669-2025", status: "awarded", status_code: "ADJ", has_buyer: true },
    ]);

    // Lots 1-3 of S-05669-2025, all won by SERVEIS DE PRODUCCIÓ MUXART, S.L. (B60707239): 42500, 47350, 88000.
    const { rows: awards } = await t.db.query(
      `SELECT a.lot, a.value, a.value_payable, a.bidders_count, a.award_date, c.name, c.nif, a.source_ref
         FROM awards a JOIN tenders t ON t.id = a.tender_id JOIN companies c ON c.id = a.winner_company_id
        WHERE t.source_ref = $1 ORDER BY a.lot`,
      [RTVE],
    );
    const winner = { name: "SERVEIS DE PRODUCCIÓ MUXART, S.L.", nif: "B60707239", award_date: "2025-12-29" };
    expect(awards).toEqual([
      {
        ...winner,
        lot: "1",
        value: 42500,
        value_payable: 51425,
        bidders_count: 1,
        source_ref: `${RTVE}#lot=1`,
      },
      {
        ...winner,
        lot: "2",
        value: 47350,
        value_payable: 57293.5,
        bidders_count: 2,
        source_ref: `${RTVE}#lot=2`,
      },
      {
        ...winner,
        lot: "3",
        value: 88000,
        value_payable: 106480,
        bidders_count: 2,
        source_ref: `${RTVE}#lot=3`,
      },
    ]);
    // One company for the three lots, keyed by its NIF, with its raw name as alias and identifier.
    expect(await count(t.db, "companies")).toBe(1);
    const { rows: ids } = await t.db.query("SELECT scheme, value FROM company_identifiers");
    expect(ids).toEqual([{ scheme: "nif", value: "B60707239" }]);

    const { rows: buyers } = await t.db.query("SELECT name, nif, platform_id FROM buyers ORDER BY name");
    expect(buyers).toEqual([
      {
        name: "Dirección de Compras de la Corporación de Radio y Televisión Española S.A.",
        nif: "A84818558",
        platform_id: "50485810086581",
      },
      {
        name: "Junta de Gobierno del Ayuntamiento de Cádiz",
        nif: "P1101200B",
        platform_id: "31056300149390",
      },
    ]);

    const { rows: tombstones } = await t.db.query(
      "SELECT source_ref, deleted_at, reason FROM tender_tombstones",
    );
    expect(tombstones).toEqual([
      {
        source_ref: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18735551",
        deleted_at: new Date("2025-12-29T14:02:42.626Z"),
        reason: "ANULADA",
      },
    ]);
  });

  it("changes nothing when the same page is ingested again", async () => {
    await ingestPage(t.db, { file: TWO_ENTRIES });
    const before = await canonicalDump(t.db);
    const { rows: awardIds } = await t.db.query("SELECT id FROM awards ORDER BY id");
    const { run } = await ingestPage(t.db, { file: TWO_ENTRIES });
    expect(run.totals).toMatchObject({ entriesNew: 0, entriesUpdated: 0, entriesUnchanged: 2 });
    expect(await canonicalDump(t.db)).toBe(before);
    expect((await t.db.query("SELECT id FROM awards ORDER BY id")).rows).toEqual(awardIds);
  });
});

describe("the 11-version lifecycle of folder 17165996", () => {
  it("ends in the final state with all 11 versions stored", async () => {
    const { run } = await ingestPage(t.db, { file: LIFECYCLE });
    // Oldest version creates the tender; each of the 10 later ones changes its content.
    expect(run.totals).toEqual({
      pages: 1,
      entriesNew: 1,
      entriesUpdated: 10,
      entriesUnchanged: 0,
      errors: 0,
    });
    const { rows } = await t.db.query<{ status: string; upstream_updated: Date }>(
      "SELECT status, upstream_updated FROM tenders WHERE source_ref = $1",
      [ISTAC],
    );
    // Newest version: 2025-08-18T09:00:00.000+02:00, status RES with result 9 (formalizado): signed.
    expect(rows).toEqual([{ status: "signed", upstream_updated: new Date("2025-08-18T07:00:00.000Z") }]);
    // Each version keeps the status code it published (the tender's source code, not the vocabulary).
    const { rows: versions } = await t.db.query<{ status: string }>(
      `SELECT v.status FROM tender_versions v JOIN tenders t ON t.id = v.tender_id
        WHERE t.source_ref = $1 ORDER BY v.upstream_updated`,
      [ISTAC],
    );
    expect(versions.map((v) => v.status)).toEqual([
      "PUB",
      "PUB",
      "PUB",
      "PUB",
      "EV",
      "EV",
      "EV",
      "EV",
      "ADJ",
      "RES",
      "RES",
    ]);
    // The final award: REDCA S.A. (A38210100), formalized (ResultCode 9), 4 bids, 224,002.34 EUR, start 2025-08-13.
    const { rows: awards } = await t.db.query(
      `SELECT a.result_code, c.name, c.nif, a.bidders_count, a.value, a.start_date, a.start_date_kind,
              a.contract_signed
         FROM awards a JOIN companies c ON c.id = a.winner_company_id`,
    );
    expect(awards).toEqual([
      {
        result_code: "9",
        name: "REDCA S.A.",
        nif: "A38210100",
        bidders_count: 4,
        value: 224002.34,
        start_date: "2025-08-13",
        start_date_kind: "actual",
        contract_signed: true,
      },
    ]);
  });

  it("reaches the same state whatever order the versions arrive in, one page per version", async () => {
    const { header, entries } = splitFeed(LIFECYCLE);
    await ingestPage(t.db, { file: LIFECYCLE });
    const inOneGo = await canonicalDump(t.db);

    await truncateAll(t.db);
    // Newest first (as the live feed delivers), then shuffled: an older snapshot never overwrites a newer one.
    for (const entry of entries) {
      await ingestPage(t.db, { xml: buildPage(header, [entry]) });
    }
    expect(await canonicalDump(t.db)).toBe(inOneGo);

    await truncateAll(t.db);
    const shuffled = [5, 0, 10, 3, 8, 1, 9, 2, 7, 4, 6].map((i) => entries[i] ?? "");
    for (const entry of shuffled) {
      await ingestPage(t.db, { xml: buildPage(header, [entry]) });
    }
    expect(await canonicalDump(t.db)).toBe(inOneGo);
  });

  it("keeps award ids when a later version re-publishes the same award", async () => {
    const { header, entries } = splitFeed(LIFECYCLE);
    // entries[2] is the ADJ version (2025-07-18), entries[1] the first RES version (2025-08-16).
    await ingestPage(t.db, { xml: buildPage(header, [entries[2] ?? ""]) });
    const { rows: adj } = await t.db.query<{ id: number; result_code: string }>(
      "SELECT id, result_code FROM awards",
    );
    expect(adj.map((a) => a.result_code)).toEqual(["8"]);
    await ingestPage(t.db, { xml: buildPage(header, [entries[1] ?? ""]) });
    const { rows: res } = await t.db.query<{ id: number; result_code: string }>(
      "SELECT id, result_code FROM awards",
    );
    expect(res).toEqual([{ id: adj[0]?.id, result_code: "9" }]);
  });
});

describe("tombstones", () => {
  it("mark a stored tender closed with the tombstone's type and time, keeping its awards", async () => {
    const { header } = splitFeed(TWO_ENTRIES);
    await ingestPage(t.db, { file: TWO_ENTRIES });
    await ingestPage(t.db, {
      xml: buildPage(header, [tombstoneXml(RTVE, "2026-01-15T10:00:00.000+01:00", "ANULADA")]),
    });
    const { rows } = await t.db.query(
      `SELECT t.deleted_at, t.deletion_reason, count(a.id)::int AS awards
         FROM tenders t LEFT JOIN awards a ON a.tender_id = t.id WHERE t.source_ref = $1
        GROUP BY t.deleted_at, t.deletion_reason`,
      [RTVE],
    );
    expect(rows).toEqual([
      { deleted_at: new Date("2026-01-15T09:00:00.000Z"), deletion_reason: "ANULADA", awards: 3 },
    ]);
  });

  it("are ignored when older than the stored version", async () => {
    const { header } = splitFeed(TWO_ENTRIES);
    await ingestPage(t.db, { file: TWO_ENTRIES });
    await ingestPage(t.db, {
      xml: buildPage(header, [tombstoneXml(RTVE, "2020-01-01T00:00:00.000+01:00", "ANULADA")]),
    });
    const { rows } = await t.db.query("SELECT deleted_at FROM tenders WHERE source_ref = $1", [RTVE]);
    expect(rows).toEqual([{ deleted_at: null }]);
  });

  it("apply when the deletion arrives before the entry it deletes", async () => {
    const { header } = splitFeed(TWO_ENTRIES);
    await ingestPage(t.db, {
      xml: buildPage(header, [tombstoneXml(RTVE, "2026-01-15T10:00:00.000+01:00", "CERRADA")]),
    });
    await ingestPage(t.db, { file: TWO_ENTRIES });
    const { rows } = await t.db.query("SELECT deletion_reason FROM tenders WHERE source_ref = $1", [RTVE]);
    expect(rows).toEqual([{ deletion_reason: "CERRADA" }]);
  });
});

describe("the aggregated (1044) page", () => {
  it("stores the buyer without NIF under its platform id and the CERRADA tombstone", async () => {
    const { run } = await ingestPage(t.db, { file: AGGREGATED }, { feed: "1044" });
    expect(run.totals).toMatchObject({ entriesNew: 1, errors: 0 });
    const { rows } = await t.db.query(
      `SELECT t.feed, b.name, b.nif, b.platform_id FROM tenders t JOIN buyers b ON b.id = t.buyer_id
        WHERE t.source_ref = $1`,
      [AMB],
    );
    expect(rows).toEqual([
      { feed: "1044", name: "Àrea Metropolitana de Barcelona", nif: null, platform_id: "28027859" },
    ]);
    const { rows: identifiers } = await t.db.query(
      "SELECT scheme, value FROM buyer_identifiers ORDER BY scheme",
    );
    expect(identifiers).toEqual([{ scheme: "placsp_platform", value: "28027859" }]);
  });
});

describe("bad input", () => {
  it("records a malformed entry as an error and ingests the rest of the page", async () => {
    const { header, entries } = splitFeed(TWO_ENTRIES);
    const broken = "<entry><title>no id, no updated</title></entry>";
    const { run } = await ingestPage(t.db, {
      xml: buildPage(header, [entries[0] ?? "", broken, entries[1] ?? ""]),
    });
    expect(run.totals).toMatchObject({ entriesNew: 2, errors: 1 });
    const { rows } = await t.db.query<{ run_id: number; reason: string }>(
      "SELECT run_id, reason FROM ingest_errors",
    );
    expect(rows).toEqual([{ run_id: run.id, reason: "entry has no <id>" }]);
  });

  it("stores an unparseable amount as null with an error row naming the field", async () => {
    const { header, entries } = splitFeed(TWO_ENTRIES);
    const rtve = (entries[0] ?? "").replace(
      /<cbc:TaxExclusiveAmount currencyID="EUR">42500<\/cbc:TaxExclusiveAmount>/,
      '<cbc:TaxExclusiveAmount currencyID="EUR">42.500,00</cbc:TaxExclusiveAmount>',
    );
    expect(rtve).not.toBe(entries[0]);
    const { run } = await ingestPage(t.db, { xml: buildPage(header, [rtve]) });
    const { rows } = await t.db.query("SELECT entry_ref, reason FROM ingest_errors WHERE run_id = $1", [
      run.id,
    ]);
    expect(rows).toEqual([
      { entry_ref: RTVE, reason: expect.stringMatching(/value: not a decimal amount: "42.500,00"/) },
    ]);
    const { rows: lot1 } = await t.db.query("SELECT value FROM awards WHERE lot = '1'");
    expect(lot1).toEqual([{ value: null }]);
  });

  it("fails the run on a page that is not an ATOM feed, leaving the data untouched", async () => {
    await ingestPage(t.db, { file: TWO_ENTRIES });
    const before = await canonicalDump(t.db);
    await expect(ingestPage(t.db, { xml: "<html><body>Mantenimiento</body></html>" })).rejects.toThrow(
      /not an ATOM feed: root element is <html>/,
    );
    expect(await canonicalDump(t.db)).toBe(before);
    const { rows } = await t.db.query("SELECT status, message FROM ingest_runs ORDER BY id DESC LIMIT 1");
    expect(rows).toEqual([{ status: "failed", message: expect.stringMatching(/not an ATOM feed/) }]);
  });

  it("commits the complete entries of a truncated page, then fails the run", async () => {
    const text = buildPage(splitFeed(LIFECYCLE).header, splitFeed(LIFECYCLE).entries.slice(0, 3));
    const cut = text.slice(0, text.lastIndexOf("<entry>") + 400);
    await expect(ingestPage(t.db, { xml: cut }, { batchSize: 1 })).rejects.toThrow(/truncated|malformed/);
    expect(await count(t.db, "tender_versions")).toBe(2);
  });
});

describe("batching", () => {
  it("gives the same database whatever the batch size", async () => {
    await ingestPage(t.db, { file: LIFECYCLE }, { batchSize: 500 });
    await ingestPage(t.db, { file: TWO_ENTRIES }, { batchSize: 500 });
    const big = await canonicalDump(t.db);
    await truncateAll(t.db);
    await ingestPage(t.db, { file: LIFECYCLE }, { batchSize: 1 });
    await ingestPage(t.db, { file: TWO_ENTRIES }, { batchSize: 2 });
    expect(await canonicalDump(t.db)).toBe(big);
  });

  it("gives the same database when the pages are parsed on a thread of their own", async () => {
    await ingestPage(t.db, { file: LIFECYCLE }, { batchSize: 3 });
    await ingestPage(t.db, { file: TWO_ENTRIES }, { batchSize: 3 });
    const inline = await canonicalDump(t.db);
    await truncateAll(t.db);
    const parser = startParseThread();
    try {
      await ingestPage(t.db, { file: LIFECYCLE }, { batchSize: 3, parser });
      await ingestPage(t.db, { file: TWO_ENTRIES }, { batchSize: 3, parser });
    } finally {
      await parser.close();
    }
    expect(await canonicalDump(t.db)).toBe(inline);
  });
});
