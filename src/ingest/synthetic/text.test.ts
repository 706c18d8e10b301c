import { describe, expect, it } from "vitest";
import { BASE_WORDS, contentRank, contentWord, HEAD_SHARE } from "./lexicon.ts";
import type { Buyer } from "./parties.ts";
import { Rng } from "./random.ts";
import { DESCRIPTION_SHARE, drawDescription, growTitle } from "./text.ts";

const buyer = { city: "Cádiz" } as Buyer;
const PATTERN = "Servicio de mantenimiento evolutivo del sistema de gestión tributaria y recaudación";

function words(text: string): string[] {
  return text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

function texts(seed: number, count: number): { title: string; description: string | null }[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, () => {
    const title = growTitle(rng, PATTERN, buyer);
    return { title, description: drawDescription(rng, title) };
  });
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.ceil(q * values.length) - 1] ?? Number.NaN;

describe("synthetic tender texts", () => {
  it("are the same for the same seed", () => {
    expect(texts(5, 50)).toEqual(texts(5, 50));
    expect(texts(5, 50)).not.toEqual(texts(6, 50));
  });

  it("have titles of real lengths: mostly 8–25 words, a few very short", () => {
    const lengths = texts(1, 4000).map((t) => words(t.title).length);
    const short = lengths.filter((n) => n <= 4).length / lengths.length;
    expect(short).toBeGreaterThan(0.05);
    expect(short).toBeLessThan(0.15);
    expect(quantile(lengths, 0.5)).toBeGreaterThanOrEqual(11);
    expect(quantile(lengths, 0.5)).toBeLessThanOrEqual(16);
    expect(quantile(lengths, 0.9)).toBeGreaterThanOrEqual(20);
    expect(quantile(lengths, 0.9)).toBeLessThanOrEqual(30);
  });

  it("have descriptions for some folders, from a sentence to a few hundred words, long-tailed", () => {
    const all = texts(2, 4000);
    const lengths = all.flatMap((t) => (t.description === null ? [] : [words(t.description).length]));
    expect(lengths.length / all.length).toBeCloseTo(DESCRIPTION_SHARE, 1);
    expect(Math.min(...lengths)).toBeLessThan(15);
    expect(quantile(lengths, 0.5)).toBeGreaterThanOrEqual(35);
    expect(quantile(lengths, 0.5)).toBeLessThanOrEqual(80);
    expect(quantile(lengths, 0.9)).toBeGreaterThan(130);
    expect(Math.max(...lengths)).toBeGreaterThan(300);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(640);
  });

  it("draw from a vocabulary that keeps growing with the corpus", () => {
    const vocabulary = (count: number) => {
      const seen = new Set<string>();
      for (const t of texts(3, count)) {
        for (const w of words(`${t.title} ${t.description ?? ""}`)) {
          seen.add(w);
        }
      }
      return seen.size;
    };
    const small = vocabulary(2000);
    const large = vocabulary(8000);
    expect(small).toBeGreaterThan(5000);
    // Heaps' law with an exponent of about one half: four times the texts, about twice the words.
    expect(large / small).toBeGreaterThan(1.6);
    expect(large / small).toBeLessThan(3);
  });
});

describe("the content lexicon", () => {
  it("has a few thousand distinct base words and a word at every rank", () => {
    expect(BASE_WORDS.length).toBeGreaterThan(2500);
    expect(new Set(BASE_WORDS).size).toBe(BASE_WORDS.length);
    expect(contentWord(0)).toBe("servicio");
    expect(contentWord(BASE_WORDS.length + 12_345)).toMatch(/^\S+$/);
    expect(contentWord(1_999_999_999)).toMatch(/^\S+$/);
  });

  it("draws the head with its share, Zipf-like, and the tail beyond it", () => {
    const rng = new Rng(9);
    const ranks = Array.from({ length: 100_000 }, () => contentRank(rng.next(), rng.next()));
    const head = ranks.filter((r) => r < BASE_WORDS.length).length / ranks.length;
    expect(head).toBeCloseTo(HEAD_SHARE, 2);
    const top10 = ranks.filter((r) => r < 10).length / ranks.length;
    const next10 = ranks.filter((r) => r >= 10 && r < 20).length / ranks.length;
    expect(top10).toBeGreaterThan(next10);
    expect(top10).toBeLessThan(0.15);
    expect(Math.max(...ranks)).toBeGreaterThan(BASE_WORDS.length * 100);
  });
});
