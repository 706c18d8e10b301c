import { checkTaxId } from "./nif.ts";

/**
 * Party (buyer, winner, joint-venture member) names. Parties are matched by normalized tax id first and, when
 * no valid id exists, by exact normalized name, so the name key has to absorb the spelling noise of published
 * names (case, accents, punctuation, how the legal form is written) without merging different parties.
 *
 * The legal-form list was compiled from shared/data/legal_forms/{es,foreign}_legal_forms.csv (rows with
 * strip_when_normalising=yes) and lives here as code: it is part of the key's definition, and changing it
 * changes every stored key.
 */

/**
 * Legal-form designations removed from the end of a name. Spelling does not matter beyond one entry per
 * form: entries and names are compared by compact form (folded, punctuation and spaces removed), so `S.A.`
 * also covers `SA`, `S. A.` and `S.A`, and `SOCIEDAD ANONIMA` covers `Sociedad Anónima`.
 *
 * Left out on purpose: UTE markers (a joint venture must never get its member's key), O.A., FUNDACION and
 * ASOCIACION (part of the name), bare COOPERATIVA (usually the start of the name: "COOPERATIVA AGRICOLA …").
 */
const LEGAL_FORMS: readonly string[] = [
  // Sociedad anónima and its kinds.
  "S.A.",
  "SOCIEDAD ANONIMA",
  "SOCIETAT ANONIMA",
  "SOCIEDADE ANONIMA",
  "SOZIETATE ANONIMOA",
  "S.A.U.",
  "S.A. UNIPERSONAL",
  "SOCIEDAD ANONIMA UNIPERSONAL",
  "SOCIETAT ANONIMA UNIPERSONAL",
  "S.A.L.",
  "SOCIEDAD ANONIMA LABORAL",
  "S.A.P.",
  "SOCIEDAD ANONIMA PROFESIONAL",
  "S.A.D.",
  "SOCIEDAD ANONIMA DEPORTIVA",
  "S.E.",
  "SOCIEDAD ANONIMA EUROPEA",
  "SOCIETAS EUROPAEA",
  "EUROPEAN COMPANY",
  // Sociedad limitada and its kinds.
  "S.L.",
  "S.R.L.",
  "SOCIEDAD LIMITADA",
  "SOCIEDAD DE RESPONSABILIDAD LIMITADA",
  "SOCIETAT LIMITADA",
  "SOCIETAT DE RESPONSABILITAT LIMITADA",
  "SOCIEDADE LIMITADA",
  "SOZIETATE MUGATUA",
  "SOC. LTDA.",
  "S. LTDA.",
  "LTDA.",
  "S.L.U.",
  "S.L. UNIPERSONAL",
  "S.R.L.U.",
  "SOCIEDAD LIMITADA UNIPERSONAL",
  "SOCIETAT LIMITADA UNIPERSONAL",
  "S.L.N.E.",
  "SOCIEDAD LIMITADA NUEVA EMPRESA",
  "S.L.L.",
  "SOCIEDAD LIMITADA LABORAL",
  "SOCIETAT LIMITADA LABORAL",
  "S.L.P.",
  "S.L. PROFESIONAL",
  "S.L.U.P.",
  "SOCIEDAD LIMITADA PROFESIONAL",
  "SOCIETAT LIMITADA PROFESSIONAL",
  // Cooperatives, with the regional spellings.
  "S.COOP.",
  "SOC. COOP.",
  "COOP.",
  "SOCIEDAD COOPERATIVA",
  "S.COOP.AND.",
  "S.C.A.",
  "SOCIEDAD COOPERATIVA ANDALUZA",
  "S.COOP.V.",
  "COOP. V.",
  "COOPERATIVA VALENCIANA",
  "S.COOP.MAD.",
  "S.COOP. GALEGA",
  "S.C.G.",
  "SOCIEDADE COOPERATIVA GALEGA",
  "KOOP. E.",
  "KOOP. ELK.",
  "KOOPERATIBA ELKARTEA",
  "S.C.C.L.",
  "SOCIETAT COOPERATIVA CATALANA LIMITADA",
  "S.COOP. DE C-LM",
  "S.COOP.R.L.",
  // Partnerships, communities, groupings.
  "S.A.T.",
  "SOCIEDAD AGRARIA DE TRANSFORMACION",
  "S.R.C.",
  "SOCIEDAD REGULAR COLECTIVA",
  "SOCIEDAD COLECTIVA",
  "Y CIA.",
  "Y COMPAÑIA",
  "S.COM.",
  "S. EN C.",
  "SOCIEDAD COMANDITARIA",
  "S.C.P.A.",
  "S.COM.P.A.",
  "SOCIEDAD COMANDITARIA POR ACCIONES",
  "S.C.",
  "S.C.P.",
  "S.C.PRIV.",
  "SOCIEDAD CIVIL",
  "SOCIEDAD CIVIL PARTICULAR",
  "SOCIEDAD CIVIL PROFESIONAL",
  "SOCIETAT CIVIL PRIVADA",
  "SOCIETAT CIVIL PARTICULAR",
  "C.B.",
  "COMUNIDAD DE BIENES",
  "COMUNITAT DE BENS",
  "A.I.E.",
  "AGRUPACION DE INTERES ECONOMICO",
  "AGRUPACIO D'INTERES ECONOMIC",
  "A.E.I.E.",
  "AGRUPACION EUROPEA DE INTERES ECONOMICO",
  "GEIE",
  "EEIG",
  "EWIV",
  // Financial and public companies; stacked as in "TRAGSA, S.A., S.M.E., M.P.".
  "S.G.R.",
  "SOCIEDAD DE GARANTIA RECIPROCA",
  "S.I.C.A.V.",
  "S.M.E.",
  "SOCIEDAD MERCANTIL ESTATAL",
  "M.P.",
  "MEDIO PROPIO",
  "MEDIO PROPIO PERSONIFICADO",
  "E.P.E.",
  "ENTIDAD PUBLICA EMPRESARIAL",
  // Foreign forms.
  "GMBH",
  "GMBH & CO. KG",
  "GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG",
  "AG",
  "AKTIENGESELLSCHAFT",
  "KG",
  "KOMMANDITGESELLSCHAFT",
  "LTD.",
  "CO. LTD.",
  "LIMITED",
  "PRIVATE LIMITED COMPANY",
  "PLC",
  "PUBLIC LIMITED COMPANY",
  "LLC",
  "LIMITED LIABILITY COMPANY",
  "INC.",
  "INCORPORATED",
  "CORP.",
  "CORPORATION",
  "B.V.",
  "B.V.B.A.",
  "BESLOTEN VENNOOTSCHAP",
  "N.V.",
  "NAAMLOZE VENNOOTSCHAP",
  "SA/NV",
  "NV/SA",
  "S.A.S.",
  "S.A.S.U.",
  "SOCIETE PAR ACTIONS SIMPLIFIEE",
  "S.A.R.L.",
  "S.À R.L.",
  "E.U.R.L.",
  "SOCIETE ANONYME",
  "SPOLKA AKCYJNA",
  "S.P.A.",
  "SOCIETA PER AZIONI",
  "SOCIETA A RESPONSABILITA LIMITATA",
  "SOCIETATE CU RASPUNDERE LIMITATA",
  "LDA.",
  "LIMITADA",
  "UNIPESSOAL LDA.",
  "OY",
  "OYJ",
  "OSAKEYHTIÖ",
  "AB",
  "AKTIEBOLAG",
  "(PUBL)",
  "A/S",
  "APS",
  "ASA",
  "AKTIESELSKAB",
  "ANPARTSSELSKAB",
  "AKSJESELSKAP",
  "SP. Z O.O.",
  "SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ",
  "S.R.O.",
  "SPOL. S R.O.",
  "KFT.",
  "ZRT.",
  "NYRT.",
];

/**
 * Trailing phrases that say something about the party's state, not who it is, so they go like a legal form:
 * the status of a company being wound up or formed, and the law UTEs cite after their marker.
 */
const TRAILING_QUALIFIERS: readonly string[] = [
  "EN LIQUIDACION",
  "EN CONCURSO",
  "EN CONCURSO DE ACREEDORES",
  "EN CONSTITUCION",
  "EN FORMACION",
  "LEY 18/1982",
];

/**
 * Forms stripped only when written with separators (`S.A.P.`, `S. A. T.`): bare, `SAP` is a software company
 * ("SAP ESPAÑA …") and `SAT` a technical-service desk ("… SERVICIO SAT").
 */
const DOTTED_ONLY_FORMS: ReadonlySet<string> = new Set(["sap", "sat"]);

/** Ways of writing the UTE marker, folded to tokens; each becomes the single token `ute`. */
const UTE_SPELLINGS: readonly (readonly string[])[] = [
  ["u", "t", "e"],
  ["union", "temporal", "de", "empresas"],
  ["unio", "temporal", "d", "empreses"],
  ["unio", "temporal", "de", "empreses"],
];
const UTE_TOKEN = "ute";

/**
 * Other joint-venture and consortium markers, mostly from TED winners. Spanish "CONSORCIO" is not one: it is
 * also a kind of public body ("CONSORCIO DE TRANSPORTES DE MADRID").
 */
const OTHER_JOINT_VENTURE_MARKERS: readonly (readonly string[])[] = [
  ["joint", "venture"],
  ["consortium"],
  ["konsortium"],
  ["konsorcjum"],
  ["arge"],
  ["arbeitsgemeinschaft"],
  ["bietergemeinschaft"],
  ["raggruppamento", "temporaneo"],
  ["associazione", "temporanea"],
  ["groupement", "momentane"],
  ["tijdelijke", "handelsvennootschap"],
];

/** Letters that NFD does not decompose into a base letter plus marks. */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
};

const compactForm = (tokens: readonly string[]): string => tokens.join("");

const TRAILING_STRIP: ReadonlySet<string> = new Set(
  [...LEGAL_FORMS, ...TRAILING_QUALIFIERS].map((form) => compactForm(foldTokens(form))),
);

/** Widest run of name tokens one designation can take: `G. M. B. H. & CO. K. G.` is 8. */
const MAX_DESIGNATION_TOKENS = 8;

/**
 * Display form of a published name: trimmed, every run of whitespace (tabs, line breaks, non-breaking and
 * other Unicode spaces) turned into one space. Case, accents and punctuation are kept.
 */
export function cleanPartyName(raw: string): string {
  return raw.replace(/\s+/g, " ").trim();
}

/**
 * Matching key of a party name: lower case, no accents, punctuation as spaces, UTE markers in one spelling,
 * and legal forms and status qualifiers removed from the end, repeatedly ("TRAGSA, S.A., S.M.E., M.P." ->
 * "tragsa"). A designation in the middle of the name stays. A name that is nothing but a designation keeps it
 * ("S.A." -> "s a") rather than collapse to "". Idempotent.
 */
export function normalizePartyName(raw: string): string {
  const tokens = canonicalizeUteMarkers(foldTokens(raw));
  return stripTrailingDesignations(tokens).join(" ");
}

/**
 * Whether a party is a joint venture: a UTE (marker as prefix, suffix, in parentheses or spelled out, in
 * Spanish or Catalan), a consortium or a foreign joint venture, or a party whose NIF is a valid Spanish NIF
 * of a UTE (organisation letter U). Markers are whole words, so "COMPUTER" or "UTENSILIOS" are not UTEs.
 * Pass the validated NIF, not any published id: DIR3 buyer codes can also start with U.
 */
export function isJointVenture(name: string, nif?: string | null): boolean {
  if (nif !== null && nif !== undefined) {
    const check = checkTaxId(nif);
    if (check.kind === "CIF" && check.validLenient && check.normalized.startsWith("U")) {
      return true;
    }
  }
  const tokens = canonicalizeUteMarkers(foldTokens(name));
  if (tokens.includes(UTE_TOKEN)) {
    return true;
  }
  return OTHER_JOINT_VENTURE_MARKERS.some((marker) => indexOfSequence(tokens, marker) >= 0);
}

/** Lower case, accents and other diacritics removed, everything but letters and digits as word breaks. */
function foldTokens(raw: string): string[] {
  const folded = raw
    // Ordinal indicators and the degree sign would become "a"/"o" under NFKC (1ª, Nº); ™ would become "tm".
    .replace(/[ªº°™]/g, " ")
    .normalize("NFKC")
    .toLowerCase()
    // Catalan geminated l: "col·legi" is also written "collegi"; any other middle dot is a separator.
    .replace(/l[\u00b7\u2027\u2219\u22c5]l/g, "ll")
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .replace(/[ßæœøłđðþı]/g, (letter) => LETTER_FOLDS[letter] ?? letter)
    // "MARTINEZ & GARCIA" and "MARTINEZ Y GARCIA" are the same partnership.
    .replace(/&/g, " y ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  return folded === "" ? [] : folded.split(" ");
}

function canonicalizeUteMarkers(tokens: readonly string[]): string[] {
  const result: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const spelling = UTE_SPELLINGS.find((candidate) => startsWithSequence(tokens, i, candidate));
    if (spelling) {
      result.push(UTE_TOKEN);
      i += spelling.length;
    } else {
      result.push(tokens[i] ?? "");
      i++;
    }
  }
  return result;
}

function stripTrailingDesignations(tokens: readonly string[]): readonly string[] {
  let end = tokens.length;
  for (;;) {
    const width = trailingDesignationWidth(tokens, end);
    // Stop when nothing matches, and also when stripping would leave no name at all.
    if (width === 0 || width >= end) {
      break;
    }
    end -= width;
  }
  return tokens.slice(0, end);
}

/** How many tokens before `end` form a designation, preferring the longest ("S.A. UNIPERSONAL" over none). */
function trailingDesignationWidth(tokens: readonly string[], end: number): number {
  for (let width = Math.min(MAX_DESIGNATION_TOKENS, end); width >= 1; width--) {
    const compact = compactForm(tokens.slice(end - width, end));
    if (TRAILING_STRIP.has(compact) && !(width === 1 && DOTTED_ONLY_FORMS.has(compact))) {
      return width;
    }
  }
  return 0;
}

function startsWithSequence(tokens: readonly string[], start: number, sequence: readonly string[]): boolean {
  return sequence.every((token, offset) => tokens[start + offset] === token);
}

function indexOfSequence(tokens: readonly string[], sequence: readonly string[]): number {
  for (let start = 0; start + sequence.length <= tokens.length; start++) {
    if (startsWithSequence(tokens, start, sequence)) {
      return start;
    }
  }
  return -1;
}
