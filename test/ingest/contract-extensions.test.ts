import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { type CraftedEntry, craftedPage } from "../helpers/crafted-placsp.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { ingestPage } from "../helpers/placsp.ts";
import { TED_FIXTURES } from "../helpers/ted-server.ts";

/**
 * The announced extensions (migration 0016's awards.extension_text / extension_months / extension_end_date)
 * through the whole pipeline: parse, normalize, apply, stored columns; then a re-published PLACSP entry
 * that changes them.
 */

const t = useTestDb();
beforeEach(async () => {
  await truncateAll(t.db);
});

interface ExtensionRow {
  id: number;
  lot: string | null;
  result_code: string | null;
  extension_text: string | null;
  extension_months: number | null;
  extension_end_date: string | null;
  updated_at: Date;
}

async function awards(): Promise<ExtensionRow[]> {
  const { rows } = await t.db.query<ExtensionRow>(
    `SELECT id, lot, result_code, extension_text, extension_months, extension_end_date, updated_at
       FROM awards ORDER BY lot, result_code`,
  );
  return rows;
}

const extensionsOf = (rows: readonly ExtensionRow[]) =>
  rows.map((r) => [r.lot, r.result_code, r.extension_text, r.extension_months, r.extension_end_date]);

const winner = { name: "Alfa Sistemas S.L.", nif: "B12345674" };

/** Folder with an extension, lot 1 overriding it, lot 2 inheriting it, and a void result on lot 3. */
function firstVersion(): CraftedEntry {
  return {
    n: 16,
    updated: "2026-01-15T10:00:00.000+01:00",
    buyer: { name: "Ayuntamiento de Prueba", nif: "Q0867012G" },
    cpv: "72000000",
    extension: {
      options: "Prórroga de un año",
      duration: { value: "1", unit: "ANN" },
      endDate: "2028-06-30",
    },
    lots: [
      { id: "1", extension: { options: "Ampliación del 10 %", duration: { value: "365", unit: "DAY" } } },
      { id: "2" },
      { id: "3", extension: { options: "Prórroga del lote 3" } },
    ],
    results: [
      { lot: "1", winner, value: 1000 },
      { lot: "2", winner, value: 2000 },
      { lot: "3", resultCode: "3", winner: null },
    ],
  };
}

describe("PLACSP: extension columns of awards", () => {
  it("stores them, updates them from a newer version, and leaves them alone otherwise", async () => {
    const v1 = firstVersion();
    await ingestPage(t.db, { xml: craftedPage([v1]) });
    const stored = await awards();
    expect(extensionsOf(stored)).toEqual([
      // lot 1's own text; 365 DAY = 12 months; no EndDate on the lot: the folder's
      ["1", "8", "Ampliación del 10 %", 12, "2028-06-30"],
      // the folder's: 1 ANN = 12 months
      ["2", "8", "Prórroga de un año", 12, "2028-06-30"],
      // desierto: no contract, no extension, although its lot announces one
      ["3", "3", null, null, null],
    ]);

    // Re-published: lot 1 now announces 6 months to 2027-12-31; the folder drops its extension, so lot 2 has
    // none any more.
    const v2: CraftedEntry = {
      ...v1,
      updated: "2026-02-01T10:00:00.000+01:00",
      extension: undefined,
      lots: [
        {
          id: "1",
          extension: {
            options: "Ampliación del 20 %",
            description: "Seis meses",
            duration: { value: "6", unit: "MON" },
            endDate: "2027-12-31",
          },
        },
        { id: "2" },
        { id: "3" },
      ],
    };
    const second = await ingestPage(t.db, { xml: craftedPage([v2]) });
    expect(second.run.totals).toMatchObject({ entriesUpdated: 1, errors: 0 });
    const updated = await awards();
    expect(extensionsOf(updated)).toEqual([
      ["1", "8", "Ampliación del 20 %\nSeis meses", 6, "2027-12-31"],
      ["2", "8", null, null, null],
      ["3", "3", null, null, null],
    ]);
    // the same award rows, updated in place
    expect(updated.map((r) => r.id)).toEqual(stored.map((r) => r.id));

    // The older version arriving late, and the same version again, change nothing.
    const late = await ingestPage(t.db, { xml: craftedPage([v1]) });
    const again = await ingestPage(t.db, { xml: craftedPage([v2]) });
    expect([late.run.totals.entriesUnchanged, again.run.totals.entriesUnchanged]).toEqual([1, 1]);
    // ids, values and updated_at: the rows were not written
    expect(await awards()).toEqual(updated);
  });
});

describe("TED: extension columns of awards", () => {
  it("stores the SDK example CAN's lot extensions on both awards", async () => {
    const summary = await ingestTed(
      { db: t.db, log: createLogger("silent"), now: () => new Date("2024-11-01T12:00:00Z") },
      {
        source: join(TED_FIXTURES, "eforms-sdk-example-can_24_FRA_comments.xml"),
        since: null,
        maxNotices: null,
        batchSize: 250,
        http: {
          userAgent: "procurement-intel-test",
          timeoutMs: 5_000,
          retries: 1,
          baseDelayMs: 1,
          maxDelayMs: 5,
        },
        query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
        lookbackDays: 30,
        noticeIntervalMs: 0,
      },
    );
    expect(summary).toMatchObject({ notices: 1, noticesNew: 1, errors: 0 });
    // LOT-0001 and LOT-0002 carry the same ContractExtension: BT-54, BT-57 (FRA), BT-58 = 3; no structured
    // renewal period, so no months or end date (the text's "12 mois" and "31.12.2023" are not read).
    const text =
      "Options description ---\n" +
      "L'accord-cadre est reconductible de manière tacite, dans les conditions définies au cahier des " +
      "clauses administratives particulières, 3 fois, pour une période de 12 mois, à compter du 1.1.2021, " +
      "sans pouvoir excéder le 31.12.2023.\n" +
      "Renewals: at most 3";
    expect(extensionsOf(await awards())).toEqual([
      ["LOT-0001", "selec-w", text, null, null],
      ["LOT-0002", "selec-w", text, null, null],
    ]);
  });
});
