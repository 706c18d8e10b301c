import { describe, expect, it } from "vitest";
import { cleanPartyName, isJointVenture, normalizePartyName } from "./party-names.ts";

describe("cleanPartyName", () => {
  it("trims and collapses every kind of whitespace to one space", () => {
    expect(cleanPartyName("  ACME\u00a0 SERVICIOS\t,\r\nS.L.  ")).toBe("ACME SERVICIOS , S.L.");
    expect(cleanPartyName("ACME\u2007\u202f\u3000SA")).toBe("ACME SA");
  });

  it("keeps case, accents and punctuation", () => {
    expect(cleanPartyName("Telefónica, S.A.")).toBe("Telefónica, S.A.");
    expect(cleanPartyName("Col·legi d'Enginyers")).toBe("Col·legi d'Enginyers");
  });

  it("turns a blank name into an empty string", () => {
    expect(cleanPartyName(" \t\n ")).toBe("");
  });
});

describe("normalizePartyName", () => {
  it("gives one key to the usual spellings of the same company", () => {
    const spellings = [
      "Telefónica, S.A.",
      "TELEFONICA SA",
      "Telefonica S. A.",
      "TELEFÓNICA S.A",
      "  telefonica ,\u00a0 s.a. ",
      "Telefónica Sociedad Anónima",
      "ＴＥＬＥＦＯＮＩＣＡ　Ｓ．Ａ．",
    ];
    for (const spelling of spellings) {
      expect(normalizePartyName(spelling)).toBe("telefonica");
    }
  });

  it.each([
    ["ACME SERVICIOS, S.L.U.", "acme servicios"],
    ["ACME S.L.", "acme"],
    ["ACME SL", "acme"],
    ["ACME, S.L.L.", "acme"],
    ["ACME SLNE", "acme"],
    ["ACME S.L.P.", "acme"],
    ["ACME, S.A.U.", "acme"],
    ["ACME SAU", "acme"],
    ["ACME S.A.L.", "acme"],
    ["ACME S.A.D.", "acme"],
    ["ACME S.A.P.", "acme"],
    ["ACME S.R.L.", "acme"],
    ["ACME SOCIEDAD LIMITADA", "acme"],
    ["ACME SOCIEDAD DE RESPONSABILIDAD LIMITADA", "acme"],
    ["ACME SOCIEDAD ANONIMA UNIPERSONAL", "acme"],
    ["ACME SOCIEDAD ANÓNIMA UNIPERSONAL", "acme"],
    ["ACME, S.A. UNIPERSONAL", "acme"],
    ["ACME S.L. UNIPERSONAL", "acme"],
    ["ACME S. COOP.", "acme"],
    ["ACME, SOC. COOP.", "acme"],
    ["ACME S.COOP.AND.", "acme"],
    ["ACME SOCIEDAD COOPERATIVA", "acme"],
    ["ACME, S.C.C.L.", "acme"],
    ["ACME KOOP. E.", "acme"],
    ["ACME S.COM.", "acme"],
    ["ACME S. EN C.", "acme"],
    ["ACME Y CIA", "acme"],
    ["ACME & CÍA.", "acme"],
    ["ACME, C.B.", "acme"],
    ["ACME COMUNIDAD DE BIENES", "acme"],
    ["ACME, A.I.E.", "acme"],
    ["ACME S.G.R.", "acme"],
    ["ACME SICAV", "acme"],
    ["ACME E.P.E.", "acme"],
    ["ACME GMBH", "acme"],
    ["ACME GmbH & Co. KG", "acme"],
    ["SIEMENS AG", "siemens"],
    ["ACME LTD", "acme"],
    ["ACME Ltd.", "acme"],
    ["ACME (UK) LIMITED", "acme uk"],
    ["ACME PLC", "acme"],
    ["ACME, LLC", "acme"],
    ["ACME, Inc.", "acme"],
    ["ACME Corporation", "acme"],
    ["ELSEVIER B.V.", "elsevier"],
    ["ACME BV", "acme"],
    ["ACME N.V.", "acme"],
    ["ACME SA/NV", "acme"],
    ["ACME SAS", "acme"],
    ["ACME S.A.R.L.", "acme"],
    ["ACME S.à r.l.", "acme"],
    ["ACME S.p.A.", "acme"],
    ["ACME S.r.l.", "acme"],
    ["ACME Lda.", "acme"],
    ["ACME OY", "acme"],
    ["ACME AB (publ)", "acme"],
    ["ACME A/S", "acme"],
    ["ACME Sp. z o.o.", "acme"],
    ["ACME s.r.o.", "acme"],
    ["ACME Kft.", "acme"],
    ["SAP SE", "sap"],
  ])("strips the trailing legal form of %s", (raw, key) => {
    expect(normalizePartyName(raw)).toBe(key);
  });

  it("strips stacked designations and status qualifiers repeatedly", () => {
    expect(normalizePartyName("TRAGSA, S.A., S.M.E., M.P.")).toBe("tragsa");
    expect(normalizePartyName("AENA S.M.E., S.A.")).toBe("aena");
    expect(normalizePartyName("ACME, S.L. (EN LIQUIDACIÓN)")).toBe("acme");
    expect(normalizePartyName("ACME SA EN CONCURSO DE ACREEDORES")).toBe("acme");
    expect(normalizePartyName("ACME SICAV S.A.")).toBe("acme");
  });

  it("does not strip a legal form from the start or the middle of a name", () => {
    expect(normalizePartyName("S.A. DE GESTION DE SERVICIOS")).toBe("s a de gestion de servicios");
    expect(normalizePartyName("SL SERVICIOS INTEGRALES SA")).toBe("sl servicios integrales");
    expect(normalizePartyName("SA POBLA SERVEIS, S.L.")).toBe("sa pobla serveis");
    expect(normalizePartyName("EMPRESA DE TRANSFORMACION AGRARIA, S.A., S.M.E., M.P. (TRAGSA)")).toBe(
      "empresa de transformacion agraria s a s m e m p tragsa",
    );
    expect(normalizePartyName("COOPERATIVA AGRICOLA SAN ISIDRO")).toBe("cooperativa agricola san isidro");
  });

  it("keeps the folded name when it is nothing but a legal form", () => {
    expect(normalizePartyName("S.A.")).toBe("s a");
    expect(normalizePartyName("SA")).toBe("sa");
    expect(normalizePartyName("SOCIEDAD ANONIMA")).toBe("sociedad anonima");
    expect(normalizePartyName("SL, S.A.")).toBe("sl");
    expect(normalizePartyName("")).toBe("");
    expect(normalizePartyName(" ., - ")).toBe("");
  });

  it("strips SAP and SAT only when dotted, since bare they are names", () => {
    expect(normalizePartyName("SAP ESPAÑA SISTEMAS INFORMATICOS, S.A.")).toBe(
      "sap espana sistemas informaticos",
    );
    expect(normalizePartyName("GRUPO SAP")).toBe("grupo sap");
    expect(normalizePartyName("ELECTRODOMESTICOS SERVICIO SAT")).toBe("electrodomesticos servicio sat");
    expect(normalizePartyName("LOS OLIVOS S.A.T.")).toBe("los olivos");
  });

  it("folds accents, ñ, ç, other Latin letters and ordinal indicators", () => {
    expect(normalizePartyName("Ñandú Çedilla Àèìòù Üï")).toBe("nandu cedilla aeiou ui");
    expect(normalizePartyName("Straße Ørsted Łódź Æther")).toBe("strasse orsted lodz aether");
    expect(normalizePartyName("Construcciones 1ª, S.L.")).toBe("construcciones 1");
    expect(normalizePartyName("S.A.T. Nº 1234 LOS OLIVOS")).toBe("s a t n 1234 los olivos");
    expect(normalizePartyName("ACME™ S.L.")).toBe("acme");
  });

  it("joins the Catalan geminated l however the middle dot is written", () => {
    const key = "collegi d enginyers industrials";
    expect(normalizePartyName("Col·legi d'Enginyers Industrials")).toBe(key);
    expect(normalizePartyName("COL·LEGI D'ENGINYERS INDUSTRIALS")).toBe(key);
    expect(normalizePartyName("Coŀlegi d’Enginyers Industrials")).toBe(key);
    expect(normalizePartyName("COLLEGI D ENGINYERS INDUSTRIALS")).toBe(key);
    // Elsewhere a middle dot separates words.
    expect(normalizePartyName("ACME·SERVICIOS")).toBe("acme servicios");
  });

  it("replaces punctuation with spaces and & with y", () => {
    expect(normalizePartyName("MARTINEZ & GARCIA, S.L.")).toBe("martinez y garcia");
    expect(normalizePartyName("MARTINEZ Y GARCIA S.L.")).toBe("martinez y garcia");
    expect(normalizePartyName('"EL CORTE INGLÉS", S.A.')).toBe("el corte ingles");
    expect(normalizePartyName("«ACME» (MADRID) - SERVICIOS/OBRAS; S.L.")).toBe("acme madrid servicios obras");
  });

  it("keeps letters of other scripts", () => {
    expect(normalizePartyName("Αθήνα Α.Ε.")).toBe("αθηνα α ε");
  });

  it("writes UTE markers one way and never strips them, so a venture does not take its member's key", () => {
    expect(normalizePartyName("UTE ACME")).toBe("ute acme");
    expect(normalizePartyName("U.T.E. ACME")).toBe("ute acme");
    expect(normalizePartyName("UNIÓN TEMPORAL DE EMPRESAS ACME")).toBe("ute acme");
    expect(normalizePartyName("UNIÓ TEMPORAL D'EMPRESES ACME")).toBe("ute acme");
    expect(normalizePartyName("ACME UTE")).toBe("acme ute");
    expect(normalizePartyName("ACME U.T.E., LEY 18/1982")).toBe("acme ute");
    expect(normalizePartyName("ACME UTE EN CONSTITUCIÓN")).toBe("acme ute");
    expect(normalizePartyName("ACME, S.A. - BETA, S.L., U.T.E.")).toBe("acme s a beta s l ute");
    expect(normalizePartyName("ACME UTE")).not.toBe(normalizePartyName("ACME, S.A."));
  });

  it("is idempotent", () => {
    const samples = [
      "Telefónica, S.A.",
      "TRAGSA, S.A., S.M.E., M.P.",
      "S.A.",
      "S.A.P.",
      "SL, S.A.",
      "SOCIEDAD ANONIMA UNIPERSONAL",
      "ACME GmbH & Co. KG",
      "U.T.E. ACME - BETA",
      "UNIÓN TEMPORAL DE EMPRESAS LEY 18/1982",
      "U U.T.E. T E",
      "Col·legi d'Enginyers",
      "Straße Ørsted Łódź",
      "S.A.T. Nº 1234",
      "Αθήνα Α.Ε.",
      "ＴＥＬＥＦＯＮＩＣＡ　Ｓ．Ａ．",
      "",
      " ., - ",
    ];
    for (const sample of samples) {
      const key = normalizePartyName(sample);
      expect(normalizePartyName(key)).toBe(key);
    }
  });
});

describe("isJointVenture", () => {
  it.each([
    "UTE",
    "U.T.E.",
    "ute",
    "UNION TEMPORAL DE EMPRESAS",
    "UNIÓN TEMPORAL DE EMPRESAS",
    "Unión Temporal de Empresas Ley 18/1982",
    "UNIÓ TEMPORAL D'EMPRESES ACME I BETA",
    "UTE ACME-BETA",
    "UTE: ACME - BETA",
    "ACME SA - BETA SL UTE",
    "ACME, S.A. Y BETA, S.L., U.T.E.",
    "ACME S.A. Y BETA S.L., UNIÓN TEMPORAL DE EMPRESAS",
    "ACSA OBRAS E INFRAESTRUCTURAS SAU Y AUXILIARES DE FIRMES Y CARRETERAS (UTE URBANITZACIÓ PLAÇA OLIVERES)",
    "COMPROMISO DE UTE ACME - BETA",
    "ACME JOINT VENTURE",
    "ARGE Straßenbau Musterstadt",
    "Konsorcjum firm: ACME Sp. z o.o. i BETA S.A.",
  ])("recognises %s", (name) => {
    expect(isJointVenture(name)).toBe(true);
  });

  it.each([
    "COMPUTER SCIENCES ESPAÑA SA",
    "INSTITUTE OF ELECTRICAL ENGINEERS",
    "BUTECH SL",
    "UTENSILIOS DE COCINA SA",
    "ATRIBUTE SOLUTIONS",
    "PROSTUTE",
    "ARGENTA SEGUROS",
    "CONSORCIO DE TRANSPORTES DE MADRID",
    "ACME S.A.U. TECNOLOGIA",
    "",
  ])("does not take %s for a joint venture", (name) => {
    expect(isJointVenture(name)).toBe(false);
  });

  it("recognises a valid UTE NIF whatever the name", () => {
    expect(isJointVenture("ACME - BETA", "U87654323")).toBe(true);
    expect(isJointVenture("ACME - BETA", "U8765432C")).toBe(true);
    expect(isJointVenture("ACME - BETA", "ESU87654323")).toBe(true);
    expect(isJointVenture("ACME - BETA", " u-87654323 ")).toBe(true);
  });

  it("ignores other NIFs, missing ids and U-codes that are not valid NIFs", () => {
    expect(isJointVenture("ACME SA", "A58818501")).toBe(false);
    expect(isJointVenture("ACME SA", null)).toBe(false);
    expect(isJointVenture("ACME SA", undefined)).toBe(false);
    expect(isJointVenture("ACME SA", "")).toBe(false);
    expect(isJointVenture("ACME SA", "U12345678")).toBe(false);
    // A UTE name is enough without an id.
    expect(isJointVenture("ACME SA UTE", "A58818501")).toBe(true);
  });
});
