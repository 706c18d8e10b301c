/**
 * Spanish tax identifiers (NIF): DNI for nationals, NIE for foreigners, K/L/M for persons without either,
 * and the legal entities' NIF still called "CIF" everywhere. Rules follow shared/research/reference-data.md
 * §3 and are pinned by shared/data/es_tax_ids/nif_test_vectors.csv.
 *
 * Two validity levels: **strict** also enforces which control form (digit or letter) an organisation letter
 * must use, so it flags bad data and decides whether a published id can identify a party; **lenient** only
 * asks that the checksum matches in either form, which is what real-world typos still satisfy.
 */

/**
 * `NIF_KLM`: K/L/M persons without DNI or NIE. `UNKNOWN`: not a Spanish NIF shape (foreign VAT, garbage,
 * empty).
 */
export type TaxIdKind = "DNI" | "NIE" | "CIF" | "NIF_KLM" | "UNKNOWN";

export interface TaxIdCheck {
  /** Canonical form (uppercase, no separators, no `ES` prefix); for `UNKNOWN` only the cleaned input. */
  normalized: string;
  kind: TaxIdKind;
  validStrict: boolean;
  validLenient: boolean;
}

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";
const CIF_CONTROL_LETTERS = "JABCDEFGHI";

/** Labels glued in front of the id (`NIF: B…`, `N.I.F. B…`). No valid id starts with one of them. */
const LEADING_LABEL = /^(?:NIF|CIF|DNI|NIE|VAT)(?=[0-9A-Z])/;
/** A Spanish VAT number is `ES` + the 9-character NIF; nothing Spanish starts with `ES` otherwise. */
const ES_VAT_PREFIX = /^ES(?=[0-9A-Z]{9}$)/;
/** Spreadsheets drop a DNI's leading zeros. */
const DNI_WITHOUT_LEADING_ZEROS = /^\d{1,7}[A-Z]$/;
/** Old NIEs were issued with 8 digits, the first one a padding zero. */
const LEGACY_NIE = /^([XYZ])0(\d{7}[A-Z])$/;

const DNI_PATTERN = /^(\d{8})([A-Z])$/;
const NIE_PATTERN = /^([XYZ])(\d{7})([A-Z])$/;
const KLM_PATTERN = /^[KLM](\d{7})([A-Z])$/;
/** The control character is checked, not matched, so a CIF with a bad control still reads as a (bad) CIF. */
const CIF_PATTERN = /^([ABCDEFGHJNPQRSUVW])(\d{7})([0-9A-Z])$/;

/** Organisation letters whose control must be a digit in strict mode. */
const DIGIT_CONTROL_LETTERS = "ABEH";
/** Organisation letters whose control must be a letter in strict mode. C D F G J U V take either. */
const LETTER_CONTROL_LETTERS = "NPQRSW";

/**
 * Normalizes and classifies a published Spanish tax id. Never throws: anything that is not a Spanish NIF
 * comes back as `UNKNOWN` and invalid.
 */
export function checkTaxId(raw: string): TaxIdCheck {
  const normalized = normalizeTaxId(raw);

  const dni = DNI_PATTERN.exec(normalized);
  if (dni) {
    const valid = dniLetter(Number(dni[1])) === dni[2];
    return { normalized, kind: "DNI", validStrict: valid, validLenient: valid };
  }

  const nie = NIE_PATTERN.exec(normalized);
  if (nie) {
    const prefixDigit = "XYZ".indexOf(nie[1] ?? "");
    const valid = dniLetter(Number(`${prefixDigit}${nie[2]}`)) === nie[3];
    return { normalized, kind: "NIE", validStrict: valid, validLenient: valid };
  }

  const klm = KLM_PATTERN.exec(normalized);
  if (klm) {
    const valid = dniLetter(Number(klm[1])) === klm[2];
    return { normalized, kind: "NIF_KLM", validStrict: valid, validLenient: valid };
  }

  const cif = CIF_PATTERN.exec(normalized);
  if (cif) {
    const [, letter = "", digits = "", control = ""] = cif;
    const check = cifControlDigit(digits);
    const digitMatches = control === String(check);
    const letterMatches = control === CIF_CONTROL_LETTERS.charAt(check);
    const validStrict = {
      digit: digitMatches,
      letter: letterMatches,
      either: digitMatches || letterMatches,
    }[strictControlForm(letter, digits)];
    return { normalized, kind: "CIF", validStrict, validLenient: digitMatches || letterMatches };
  }

  return { normalized, kind: "UNKNOWN", validStrict: false, validLenient: false };
}

/**
 * The normalized id when it is valid in strict mode, else null. Ingestion uses this to decide whether a
 * published id can identify a party; a lenient-only match is too likely to be a typo for another entity.
 */
export function validNif(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) {
    return null;
  }
  const check = checkTaxId(raw);
  return check.validStrict ? check.normalized : null;
}

function normalizeTaxId(raw: string): string {
  // NFKC folds full-width digits and letters; every separator (spaces, dots, dashes, slashes, quotes, colons)
  // goes, since no Spanish id contains anything but A-Z and 0-9.
  let id = raw
    .normalize("NFKC")
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, "");
  id = id.replace(LEADING_LABEL, "");
  // After the separators are gone, so that `ES-B12345674` is handled too.
  id = id.replace(ES_VAT_PREFIX, "");
  if (DNI_WITHOUT_LEADING_ZEROS.test(id)) {
    id = id.padStart(9, "0");
  }
  return id.replace(LEGACY_NIE, "$1$2");
}

function dniLetter(number: number): string {
  return DNI_LETTERS.charAt(number % 23);
}

/** Luhn check digit over the 7 central digits. */
function cifControlDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits.charAt(i));
    if (i % 2 === 0) {
      // Odd positions (1st, 3rd, …) are doubled and their digits summed: 7 -> 14 -> 5.
      const doubled = digit * 2;
      sum += Math.floor(doubled / 10) + (doubled % 10);
    } else {
      sum += digit;
    }
  }
  return (10 - (sum % 10)) % 10;
}

function strictControlForm(letter: string, digits: string): "digit" | "letter" | "either" {
  // Province `00` means non-resident, and those always carry a letter control whatever the organisation type.
  if (digits.startsWith("00")) {
    return "letter";
  }
  if (DIGIT_CONTROL_LETTERS.includes(letter)) {
    return "digit";
  }
  if (LETTER_CONTROL_LETTERS.includes(letter)) {
    return "letter";
  }
  return "either";
}
