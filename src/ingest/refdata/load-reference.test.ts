import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTestDb } from "../../../test/helpers/db.ts";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import { findCpvLabels } from "../../db/queries/reference.ts";
import { loadCpvLabels, loadNutsNames } from "./load-reference.ts";

const t = useTestDb();
const CPV_CSV = `${SHARED_DIR}data/cpv/cpv2008.csv`;
const NUTS_CSV = `${SHARED_DIR}data/nuts/nuts.csv`;

describe("CPV labels", () => {
  it("loads every row of the shared CPV 2008 file, quoted labels included", async () => {
    // cpv2008.csv: 9,455 lines = header + 9,454 codes.
    expect(await loadCpvLabels(t.db, CPV_CSV)).toEqual({ loaded: 9454, skipped: 0 });
    const labels = await findCpvLabels(t.db, ["72000000", "48000000", "99999999"]);
    expect(labels.get("72000000")).toEqual({
      label_en: "IT services: consulting, software development, Internet and support",
      label_es: "Servicios TI: consultoría, desarrollo de software, Internet y apoyo",
    });
    expect(labels.get("48000000")?.label_en).toBe("Software package and information systems");
    expect(labels.has("99999999")).toBe(false); // unknown codes have no label; served as null
    const { rows } = await t.db.query<{ check_digit: number }>(
      "SELECT check_digit FROM cpv_codes WHERE code = '72267000'",
    );
    expect(rows[0]?.check_digit).toBe(4);
  });

  it("is idempotent", async () => {
    await loadCpvLabels(t.db, CPV_CSV);
    await loadCpvLabels(t.db, CPV_CSV);
    const { rows } = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM cpv_codes");
    expect(rows[0]?.n).toBe(9454);
  });

  it("skips rows without a valid code and accepts codes written with their check digit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-cpv-"));
    const file = join(dir, "cpv.csv");
    writeFileSync(
      file,
      "code,check_digit,label_en,label_es\n30200000-1,,Computer equipment,Equipo informático\nabc,1,x,y\n,,,\n",
    );
    expect(await loadCpvLabels(t.db, file)).toEqual({ loaded: 1, skipped: 2 });
    const { rows } = await t.db.query(
      "SELECT code, check_digit, label_en FROM cpv_codes WHERE code = '30200000'",
    );
    expect(rows).toEqual([{ code: "30200000", check_digit: 1, label_en: "Computer equipment" }]);
  });

  it("refuses a file without the expected columns, naming them", async () => {
    await expect(loadCpvLabels(t.db, NUTS_CSV)).rejects.toThrow(/missing label_en, label_es/);
  });

  it("loads from an http URL", async () => {
    const server = createServer((_, res) => {
      res.end(
        "code,check_digit,label_en,label_es\n72212000,4,Programming services,Servicios de programación\n",
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await loadCpvLabels(t.db, `http://127.0.0.1:${port}/cpv.csv`)).toEqual({
        loaded: 1,
        skipped: 0,
      });
    } finally {
      server.close();
    }
  });
});

describe("NUTS names", () => {
  it("loads the shared NUTS file", async () => {
    // nuts.csv: 2,122 lines = header + 2,121 codes.
    expect(await loadNutsNames(t.db, NUTS_CSV)).toEqual({ loaded: 2121, skipped: 0 });
    const { rows } = await t.db.query(
      "SELECT code, level, name, parent_code FROM nuts_codes WHERE code IN ('ES', 'ES511') ORDER BY code",
    );
    expect(rows).toEqual([
      { code: "ES", level: 0, name: "España", parent_code: null },
      { code: "ES511", level: 3, name: "Barcelona", parent_code: "ES51" },
    ]);
  });
});
