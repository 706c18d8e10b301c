import { describe, expect, it } from "vitest";
import {
  CONTRACT_FOLDER_STATUS_CODES,
  CONTRACT_TYPE_CODES,
  CONTRACTING_SYSTEM_CODES,
  FRAMEWORK_SYSTEM_CODES,
  isKnownCode,
  PROCEDURE_CODES,
  TENDER_RESULT_CODES,
  VOID_RESULT_CODES,
} from "./codes.ts";

describe("PLACSP code lists", () => {
  it("hold the codes of placsp.md §6", () => {
    expect(Object.keys(CONTRACT_FOLDER_STATUS_CODES)).toEqual(["PRE", "PUB", "EV", "ADJ", "RES", "ANUL"]);
    expect(PROCEDURE_CODES["9"]).toBe("Abierto simplificado");
    expect(PROCEDURE_CODES["6"]).toBe("Contrato menor");
    expect(Object.keys(PROCEDURE_CODES)).toHaveLength(15);
    expect(Object.keys(CONTRACTING_SYSTEM_CODES)).toEqual(["0", "1", "2", "3", "4"]);
    expect(Object.keys(TENDER_RESULT_CODES)).toHaveLength(11);
    expect(TENDER_RESULT_CODES["9"]).toBe("Formalizado");
    expect(Object.keys(CONTRACT_TYPE_CODES).sort()).toEqual(
      ["1", "2", "3", "7", "8", "21", "22", "31", "32", "40", "50"].sort(),
    );
  });

  it("classify void results and framework systems", () => {
    expect([...VOID_RESULT_CODES]).toEqual(["3", "4", "5", "6", "7"]);
    expect(VOID_RESULT_CODES.has("8")).toBe(false);
    expect([...FRAMEWORK_SYSTEM_CODES]).toEqual(["1", "3"]);
  });

  it("only own keys are codes", () => {
    expect(isKnownCode(CONTRACT_FOLDER_STATUS_CODES, "RES")).toBe(true);
    expect(isKnownCode(CONTRACT_FOLDER_STATUS_CODES, "res")).toBe(false);
    expect(isKnownCode(PROCEDURE_CODES, "toString")).toBe(false);
    expect(isKnownCode(PROCEDURE_CODES, "constructor")).toBe(false);
  });
});
