/**
 * Title similarity of two notices of one buyer: the measure the re-tender rules and the backtest's hit rule use
 * (docs/signals.md, "Related tenders"). It must be reproducible by anyone who re-scores a backtest from its
 * forecasts file, so it is a fixed recipe, not a model:
 *
 * 1. fold the title: Unicode NFKD, drop what is not ASCII (accents, ñ → n), lower case;
 * 2. its words: runs of a–z of at least 4 letters, minus the stop words below (articles and prepositions, and
 *    the words every procurement title carries: "servicio", "contratación", "suministro", "obras", …);
 * 3. each word cut to its first 6 letters (a crude stem: "mantenimiento" and "mantener" stay apart, "limpieza"
 *    and "limpiezas" meet);
 * 4. two titles are similar when each has at least 2 such stems and the Jaccard index of the two sets (shared
 *    stems over all stems) is at least 0.5.
 */

/** Spanish function words and the generic words of procurement titles; compared after folding. */
export const TITLE_STOP_WORDS: ReadonlySet<string> = new Set([
  // function words (those of 4 letters or more; shorter words never count)
  "para",
  "entre",
  "desde",
  "hasta",
  "sobre",
  "como",
  "durante",
  // generic procurement words
  "servicio",
  "servicios",
  "contrato",
  "contratos",
  "contratacion",
  "contratar",
  "suministro",
  "suministros",
  "obra",
  "obras",
  "mantenimiento",
  "ejecucion",
  "proyecto",
  "procedimiento",
  "abierto",
  "negociado",
  "adjudicacion",
  "convocatoria",
  "publica",
  "publico",
  "pliego",
  "condiciones",
  "administrativa",
  "administrativas",
  "tecnicas",
  "otros",
  "otras",
  "diversos",
  "diversas",
  "varios",
  "varias",
  "municipal",
  "municipales",
  "ayuntamiento",
  "municipio",
  "realizacion",
  "prestacion",
  "gestion",
  "derivado",
  "acuerdo",
  "marco",
  "lote",
  "lotes",
  "anos",
  "periodo",
]);

/** The minimum Jaccard index of two titles' stems for them to be similar. */
export const TITLE_SIMILARITY_MIN = 0.5;
/** Each title needs at least this many stems to be compared at all (one shared word is not a match). */
export const TITLE_MIN_STEMS = 2;
const STEM_LENGTH = 6;
const MIN_WORD_LENGTH = 4;

/** A title's stems, distinct and ascending (step 1–3 above); empty for a null title. */
export function titleStems(title: string | null): string[] {
  if (title === null) {
    return [];
  }
  const folded = title
    .normalize("NFKD")
    .replace(/[^\x20-\x7e]/g, "")
    .toLowerCase();
  const stems = new Set<string>();
  for (const word of folded.match(/[a-z]+/g) ?? []) {
    if (word.length >= MIN_WORD_LENGTH && !TITLE_STOP_WORDS.has(word)) {
      stems.add(word.slice(0, STEM_LENGTH));
    }
  }
  return [...stems].sort();
}

/** Step 4: two stem lists (as `titleStems` returns them: distinct, ascending) are similar titles. */
export function similarTitles(a: readonly string[], b: readonly string[]): boolean {
  if (a.length < TITLE_MIN_STEMS || b.length < TITLE_MIN_STEMS) {
    return false;
  }
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) {
      i++;
    } else {
      j++;
    }
  }
  return shared / (a.length + b.length - shared) >= TITLE_SIMILARITY_MIN;
}

/**
 * Stems of a title, computed once per distinct title: the similarity is asked of the same few titles again and again
 * (a buyer's lots, its re-published tenders), and most titles of the evidence are never compared at all, so stems
 * are made only when a comparison needs them. The cache is dropped whole when it grows past its limit.
 */
const stemCache = new Map<string, readonly string[]>();
const STEM_CACHE_LIMIT = 100_000;

export function stemsOf(title: string | null): readonly string[] {
  if (title === null) {
    return [];
  }
  let stems = stemCache.get(title);
  if (!stems) {
    if (stemCache.size >= STEM_CACHE_LIMIT) {
      stemCache.clear();
    }
    stems = titleStems(title);
    stemCache.set(title, stems);
  }
  return stems;
}
