import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../test/helpers/engines.ts";
import { parseCsvRecords } from "./csv.ts";
import { checkTaxId, validNif } from "./nif.ts";

const VECTORS_CSV = `${SHARED_DIR}data/es_tax_ids/nif_test_vectors.csv`;
// Read in place; inputs keep their leading/trailing spaces because normalization has to remove them.
const vectors = parseCsvRecords(readFileSync(VECTORS_CSV, "utf8"));

function csvBoolean(value: string | undefined): boolean {
  if (value === "true") {
    return true;
  }
  if (value === "false") {
    return false;
  }
  throw new Error(`not a boolean in ${VECTORS_CSV}: ${value}`);
}

describe("checkTaxId against the shared test vectors", () => {
  it("reads every vector with all columns", () => {
    // A silently empty or re-shaped file would make the table test below vacuous.
    expect(vectors).toHaveLength(36);
    for (const row of vectors) {
      expect(Object.keys(row).sort()).toEqual(
        ["input", "kind", "normalized", "note", "valid_lenient", "valid_strict"].sort(),
      );
    }
    expect(vectors.some((row) => row.input === " 12345678 Z ")).toBe(true);
  });

  it.each(vectors)("'$input' -> $normalized $kind ($note)", (row) => {
    expect(checkTaxId(row.input ?? "")).toEqual({
      normalized: row.normalized,
      kind: row.kind,
      validStrict: csvBoolean(row.valid_strict),
      validLenient: csvBoolean(row.valid_lenient),
    });
  });
});

describe("checkTaxId normalization", () => {
  it("drops leading labels such as NIF:, N.I.F., CIF, DNI, NIE and VAT", () => {
    expect(checkTaxId("NIF: B12345674").normalized).toBe("B12345674");
    expect(checkTaxId("N.I.F. B-12.345.674").normalized).toBe("B12345674");
    expect(checkTaxId("CIF A58818501").normalized).toBe("A58818501");
    expect(checkTaxId("DNI 12345678-Z").normalized).toBe("12345678Z");
    expect(checkTaxId("NIE: X-1234567-L").normalized).toBe("X1234567L");
    expect(checkTaxId("VAT ESB12345674").normalized).toBe("B12345674");
  });

  it("strips an ES prefix written with a separator", () => {
    expect(checkTaxId("ES-B12345674")).toMatchObject({
      normalized: "B12345674",
      kind: "CIF",
      validStrict: true,
    });
    expect(checkTaxId("es 12345678z")).toMatchObject({
      normalized: "12345678Z",
      kind: "DNI",
      validStrict: true,
    });
  });

  it("removes slashes, underscores, commas, quotes, tabs and non-breaking spaces", () => {
    expect(checkTaxId('"B/12_345,674"').normalized).toBe("B12345674");
    expect(checkTaxId("\tB\u00a012345674\r\n").normalized).toBe("B12345674");
  });

  it("folds full-width characters", () => {
    expect(checkTaxId("Ｂ１２３４５６７４")).toMatchObject({ normalized: "B12345674", validStrict: true });
  });

  it("pads a DNI that lost several leading zeros", () => {
    // 123456 mod 23 = 15 -> S.
    expect(checkTaxId("123456S")).toMatchObject({ normalized: "00123456S", kind: "DNI", validStrict: true });
  });

  it("leaves an ES prefix alone when it is not followed by exactly nine characters", () => {
    expect(checkTaxId("ES1234567L")).toMatchObject({ kind: "UNKNOWN", validLenient: false });
  });
});

describe("checkTaxId validation", () => {
  it("applies the CIF control form per organisation letter in strict mode only", () => {
    // B12345674: control digit 4, control letter D.
    expect(checkTaxId("B1234567D")).toMatchObject({ kind: "CIF", validStrict: false, validLenient: true });
    // Q2826000H: control digit 8 would be the digit form.
    expect(checkTaxId("Q28260008")).toMatchObject({ validStrict: false, validLenient: true });
    // G (association) takes either form.
    expect(checkTaxId("G28282812")).toMatchObject({ validStrict: true, validLenient: true });
    expect(checkTaxId("G2828281B")).toMatchObject({ validStrict: true, validLenient: true });
  });

  it("requires a letter control for a non-resident '00' province whatever the organisation letter", () => {
    // 0012345 -> control 5 / E.
    expect(checkTaxId("B00123455")).toMatchObject({ validStrict: false, validLenient: true });
    expect(checkTaxId("B0012345E")).toMatchObject({ validStrict: true, validLenient: true });
  });

  it("reads a CIF with a control letter beyond J as an invalid CIF", () => {
    expect(checkTaxId("B1234567Z")).toMatchObject({ kind: "CIF", validStrict: false, validLenient: false });
  });

  it("checks the letter of K/L/M ids and rejects a wrong one", () => {
    expect(checkTaxId("L1234567L")).toMatchObject({ kind: "NIF_KLM", validStrict: true });
    expect(checkTaxId("M1234567A")).toMatchObject({
      kind: "NIF_KLM",
      validStrict: false,
      validLenient: false,
    });
  });

  it("does not take other identifiers for a NIF", () => {
    // DIR3 codes identify buyers; a DNI without its letter cannot be checked.
    for (const raw of ["L01280796", "EA0000000", "12345678", "X1234567", "DE123456789", "PT123456789"]) {
      expect(checkTaxId(raw)).toMatchObject({ kind: "UNKNOWN", validStrict: false, validLenient: false });
    }
  });
});

describe("validNif", () => {
  it("returns the normalized id when it is valid in strict mode", () => {
    expect(validNif(" b-12.345.674 ")).toBe("B12345674");
    expect(validNif("ES12345678Z")).toBe("12345678Z");
    expect(validNif("1234567L")).toBe("01234567L");
    expect(validNif("X01234567L")).toBe("X1234567L");
    expect(validNif("Q2826000H")).toBe("Q2826000H");
    expect(validNif("K1234567L")).toBe("K1234567L");
  });

  it("rejects ids that only pass in lenient mode", () => {
    expect(validNif("A5881850A")).toBeNull();
    expect(validNif("Q28260008")).toBeNull();
    expect(validNif("F00123455")).toBeNull();
  });

  it("rejects bad checksums", () => {
    expect(validNif("12345678A")).toBeNull();
    expect(validNif("X1234567A")).toBeNull();
    expect(validNif("B12345678")).toBeNull();
  });

  it("returns null for missing, empty and placeholder values", () => {
    for (const raw of [
      null,
      undefined,
      "",
      "   ",
      "N/A",
      "-",
      "--",
      "0",
      "EXTRANJERO",
      "NIF",
      "S/N",
      "000000000",
    ]) {
      expect(validNif(raw)).toBeNull();
    }
  });

  it("returns null for foreign VAT numbers", () => {
    expect(validNif("FR12345678901")).toBeNull();
    expect(validNif("DE 123 456 789")).toBeNull();
    expect(validNif("GB123456789")).toBeNull();
  });
});
