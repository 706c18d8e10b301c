import { describe, expect, it } from "vitest";
import type { FieldError } from "../model.ts";
import { spanishNif, splitJoinedParty, toGroup, toWinner } from "./party.ts";

describe("spanishNif", () => {
  it.each([
    // Spanish party, valid CIF
    ["Q0867012G", "ES", "Q0867012G"],
    // unknown country: the id alone decides
    ["B78970506", null, "B78970506"],
    // Spanish VAT form
    ["ESB12345674", "ES", "B12345674"],
    // foreign party with an explicit ES VAT prefix
    ["ES B12345674", "FR", "B12345674"],
    // foreign party, person-id shape that happens to pass the DNI check: not a NIF
    ["12345678Z", "FR", null],
    ["X1234567L", "IE", null],
    // foreign party, organisation NIF (CIF) shape: a Spanish company with a foreign address
    ["A58818501", "PT", "A58818501"],
    // junk seen in CompanyID
    ["ΕΘΝΙΚΟΣ ΟΡΓΑΝΙΣΜΟΣ ΦΑΡΜΑΚΩΝ", "GR", null],
    ["Nicht bekannt!", "DE", null],
    ["0553755479_1899", "BE", null],
    // Spanish party, id with a bad control character
    ["B78970507", "ES", null],
    [null, "ES", null],
  ])("%j (%s) -> %j", (raw, country, expected) => {
    expect(spanishNif(raw, country)).toBe(expected);
  });
});

describe("splitJoinedParty", () => {
  it("glues legal forms back to their company and pairs names with ids", () => {
    const errors: FieldError[] = [];
    const members = splitJoinedParty(
      {
        name: "Alfa, S.A., S.M.E., M.P., Beta Consultores, S. L. P., Gamma SL",
        rawId: "A58818501; B12345674 ;B78970506",
        idScheme: null,
        country: "ES",
      },
      "winner",
      errors,
    );
    expect(errors).toEqual([]);
    expect(members).toEqual([
      {
        name: "Alfa, S.A., S.M.E., M.P.",
        nif: "A58818501",
        rawId: "A58818501",
        idScheme: null,
        country: "ES",
      },
      {
        name: "Beta Consultores, S. L. P.",
        nif: "B12345674",
        rawId: "B12345674",
        idScheme: null,
        country: "ES",
      },
      { name: "Gamma SL", nif: "B78970506", rawId: "B78970506", idScheme: null, country: "ES" },
    ]);
  });

  it("keeps the names without ids when the counts differ, and says so", () => {
    const errors: FieldError[] = [];
    const members = splitJoinedParty(
      {
        name: "Alfa, S.A., Beta, S.L., Gamma, S.L.",
        rawId: "A58818501, B12345674",
        idScheme: null,
        country: "ES",
      },
      "awards[1].winner",
      errors,
    );
    expect(members?.map((m) => [m.name, m.rawId])).toEqual([
      ["Alfa, S.A.", null],
      ["Beta, S.L.", null],
      ["Gamma, S.L.", null],
    ]);
    expect(errors).toEqual([
      {
        field: "awards[1].winner",
        reason: "2 ids but 3 names in one party; ids not attributed to members",
      },
    ]);
  });

  it.each([
    // one id: not a list
    ["Ernst & Young, S. L.", "B78970506"],
    // a comma inside one id-like value with short parts
    ["Acme Ltd", "12,345"],
    // free text with a comma
    ["Acme Ltd", "t: +49 30 1234, Berlin"],
    // no id at all
    ["Acme Ltd", null],
  ])("leaves %j / %j alone", (name, rawId) => {
    expect(splitJoinedParty({ name, rawId, idScheme: null, country: "ES" }, "w", [])).toBeNull();
  });
});

describe("toWinner and toGroup", () => {
  it("keeps a single party's unvalidated id as rawId only", () => {
    expect(
      toWinner(
        { name: "  Hegeman  Bouw\n& Infra B.V. ", rawId: "70248311", idScheme: "002", country: "NL" },
        "w",
        [],
      ),
    ).toEqual({
      name: "Hegeman Bouw & Infra B.V.",
      nif: null,
      rawId: "70248311",
      idScheme: "002",
      country: "NL",
      isJointVenture: false,
      members: [],
    });
  });

  it("flags a UTE by its NIF letter", () => {
    // U + 1234567: Luhn over 1,3,5,7 doubled (2+6+1+5) and 2,4,6 (12) = 26 → control 4
    const winner = toWinner(
      { name: "Obras Norte", rawId: "U12345674", idScheme: null, country: "ES" },
      "w",
      [],
    );
    expect(winner).toMatchObject({ nif: "U12345674", isJointVenture: true, members: [] });
  });

  it("returns null for an empty group", () => {
    expect(toGroup([], null)).toBeNull();
  });
});
