import { contentRank, contentWord, FUNCTION_WORDS, zipfSampler } from "./lexicon.ts";
import type { Buyer } from "./parties.ts";
import { PROVINCES } from "./places.ts";
import type { Rng } from "./random.ts";

/**
 * The free text of a synthetic folder: its title grown from the subject's pattern to the lengths real
 * titles have (a few are two or three words, "grúa telescópica"; many run past twenty), and a description
 * for some folders, from a sentence to a few hundred words (long-tailed), drawn from the Zipf lexicon.
 *
 * Measured on the real fixtures (`npm run bench -- text-stats`): titles average ~13 words (p90 ~24);
 * descriptions, where there is one (TED procedures; PLACSP folders never carry `ProcurementProject/Description`),
 * have a median of ~50 words and a p90 of ~180; a text has ~40 distinct words on average.
 */

/** Share of folders with a description. */
export const DESCRIPTION_SHARE = 0.6;

const drawFunctionRank = zipfSampler(FUNCTION_WORDS.length, 1.0, 1.5);

function content(rng: Rng): string {
  return contentWord(contentRank(rng.next(), rng.next()));
}

function functionWord(rng: Rng): string {
  return FUNCTION_WORDS[drawFunctionRank(rng.next())] ?? "de";
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function lowerFirst(text: string): string {
  return /^[A-ZÁÉÍÓÚÑ][a-záéíóúñ]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/** `count` content words joined the way titles chain them: "a, b y c". */
function contentList(rng: Rng, count: number): string {
  const items = Array.from({ length: count }, () => content(rng));
  if (items.length < 2) {
    return items.join("");
  }
  return `${items.slice(0, -1).join(", ")} y ${items[items.length - 1]}`;
}

function municipality(rng: Rng, buyer: Buyer): string {
  return rng.chance(0.6) ? buyer.city : rng.pick(rng.pick(PROVINCES).municipalities);
}

function year(rng: Rng): number {
  return rng.int(2019, 2027);
}

const PROGRAMMES: readonly string[] = [
  "financiado por la Unión Europea - NextGenerationEU",
  "en el marco del Plan de Recuperación, Transformación y Resiliencia",
  "cofinanciado por el Fondo Europeo de Desarrollo Regional (FEDER)",
  "incluido en la Estrategia de Desarrollo Urbano Sostenible e Integrado",
  "del programa de ayudas para la transformación digital de las entidades locales",
];

/** One qualifier appended to a title pattern. */
function qualifier(rng: Rng, buyer: Buyer): string {
  switch (
    rng.weighted([
      ["place", 22],
      ["year", 18],
      ["chain", 26],
      ["list", 10],
      ["programme", 7],
      ["file", 7],
      ["project", 10],
    ] as const)
  ) {
    case "place":
      return (
        rng.pick([" en ", " del municipio de ", " en el término municipal de ", " de "]) +
        municipality(rng, buyer)
      );
    case "year": {
      const y = year(rng);
      return rng.pick([
        ` ${y}`,
        ` (${y})`,
        ` para el ejercicio ${y}`,
        ` ${y}-${y + 1}`,
        ` durante los años ${y} y ${y + 1}`,
      ]);
    }
    case "chain":
      return ` ${rng.pick(["y", "con", "para", "de", "en"])} ${rng.pick(["el", "la", "los", "las", ""])} ${content(rng)} ${rng.pick(["de", "del", "y", ""])} ${content(rng)}`.replace(
        /\s+/g,
        " ",
      );
    case "list":
      return `, incluyendo ${contentList(rng, rng.int(2, 4))}`;
    case "programme":
      return `, ${rng.pick(PROGRAMMES)}`;
    case "file":
      return ` (Expte. ${year(rng)}/${String(rng.int(1, 9999)).padStart(4, "0")})`;
    default:
      return ` denominado "${Array.from({ length: rng.int(1, 4) }, () => content(rng).toUpperCase()).join(" ")} ${year(rng)}"`;
  }
}

/** A title as real notices have it: the pattern with qualifiers, or now and then just a few words. */
export function growTitle(rng: Rng, pattern: string, buyer: Buyer): string {
  if (rng.chance(0.1)) {
    const words = [capitalize(content(rng)), ...Array.from({ length: rng.int(0, 3) }, () => content(rng))];
    if (rng.chance(0.3)) {
      words.splice(1, 0, String(rng.int(1, 60)));
    }
    return words.join(" ");
  }
  const count = rng.weighted([
    [0, 38],
    [1, 32],
    [2, 18],
    [3, 8],
    [4, 4],
  ]);
  let title = pattern;
  for (let i = 0; i < count; i++) {
    title += qualifier(rng, buyer);
  }
  return title;
}

/** A sentence of about `length` words: content words with function words between them, as prose runs. */
function sentence(rng: Rng, length: number): string {
  const out: string[] = [];
  let previousFunction = true;
  while (out.length < length) {
    if (!previousFunction && rng.chance(0.5)) {
      out.push(functionWord(rng));
      previousFunction = true;
    } else {
      let word = content(rng);
      if (rng.chance(0.04)) {
        word = String(rng.chance(0.5) ? rng.int(2, 500) : rng.int(1000, 99_999));
      }
      out.push(word);
      previousFunction = false;
      if (out.length < length - 1 && rng.chance(0.06)) {
        out[out.length - 1] += ",";
        previousFunction = true;
      }
    }
  }
  return `${capitalize(out.join(" "))}.`;
}

const OPENINGS: readonly ((title: string) => string)[] = [
  (t) => `El objeto del contrato es ${t}.`,
  (t) => `Contratación de ${t}.`,
  (t) =>
    `Constituye el objeto del presente contrato ${t}, en los términos del pliego de prescripciones técnicas.`,
  (t) => `${capitalize(t)}.`,
  () => "",
];

/** A description of a long-tailed length (median ~50 words, p90 ~180, up to ~600), or null for none. */
export function drawDescription(rng: Rng, title: string): string | null {
  if (!rng.chance(DESCRIPTION_SHARE)) {
    return null;
  }
  const target = Math.min(600, Math.max(4, Math.round(rng.logNormal(50, 0.95))));
  const parts: string[] = [];
  const opening = rng.pick(OPENINGS)(lowerFirst(title));
  let words = 0;
  if (opening !== "" && target > 12) {
    parts.push(opening);
    words += opening.split(" ").length;
  }
  while (words < target) {
    const length = Math.min(target - words, rng.int(6, 30));
    parts.push(sentence(rng, Math.max(1, length)));
    words += length;
  }
  return parts.join(" ");
}
