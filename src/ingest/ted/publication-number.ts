/**
 * TED publication numbers ("OJ S notice numbers"). The same notice is written differently by each channel
 * (ted.md §3.3):
 *
 * | channel                           | example             |
 * |-----------------------------------|---------------------|
 * | eForms `NoticePublicationID`      | `00611835-2024`     |
 * | Search API `publication-number`   | `611835-2024`       |
 * | R2.0.9 `@DOC_ID`                  | `003543-2021`       |
 * | R2.0.9 `NO_DOC_OJS`               | `2021/S 003-003543` |
 * | daily-package member file names  | `00566194_2026`     |
 *
 * The canonical form is the API's: `{number without leading zeros}-{year}`, e.g. `611835-2024`. It is also
 * what the ted.europa.eu URLs use, so one string serves as the `ted` source_ref and builds the notice URL.
 */

/** `{number}-{year}` or `{number}_{year}`, the number possibly zero-padded. */
const NUMBER_YEAR_RE = /^0*(\d{1,10})[-_](\d{4})$/;
/** `{year}/S {OJ issue}-{number}`: the issue (1–3 digits, often zero-padded) is not part of the identity. */
const OJ_REFERENCE_RE = /^(\d{4})\s*\/\s*S\s*\d{1,3}\s*-\s*0*(\d{1,10})$/i;

/**
 * The canonical publication number (`611835-2024`), or null when `raw` is not one. A number of 0 is not a
 * publication number (padding-only input such as `0000-2024` is rejected).
 */
export function normalizePublicationNumber(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) {
    return null;
  }
  const value = raw.trim();
  const plain = NUMBER_YEAR_RE.exec(value);
  if (plain) {
    return canonical(plain[1], plain[2]);
  }
  const oj = OJ_REFERENCE_RE.exec(value);
  if (oj) {
    return canonical(oj[2], oj[1]);
  }
  return null;
}

/**
 * The year of synthetic publication numbers (`17-0000`): no Official Journal has a year 0, so a synthetic
 * notice can never be taken for a real one, and ingestion flags it as synthetic (`tenders.is_synthetic`).
 */
export const SYNTHETIC_TED_YEAR = "0000";

/** True for a canonical publication number in the synthetic space (`{n}-0000`). */
export function isSyntheticPublicationNumber(publicationNumber: string): boolean {
  return /^\d+-0000$/.test(publicationNumber);
}

/**
 * The notice's landing page on ted.europa.eu for a canonical publication number. The English page is used
 * whatever the notice language: the page itself offers every language, and one stable URL per notice is
 * easier to compare and cache than a per-language one.
 */
export function tedNoticeUrl(publicationNumber: string): string {
  return `https://ted.europa.eu/en/notice/-/detail/${publicationNumber}`;
}

function canonical(number: string | undefined, year: string | undefined): string | null {
  if (number === undefined || year === undefined) {
    return null;
  }
  const n = Number(number);
  if (!Number.isSafeInteger(n) || n === 0) {
    return null;
  }
  return `${n}-${year}`;
}
