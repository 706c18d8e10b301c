import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, weightedSampler } from "./random.ts";

describe("Rng", () => {
  it("repeats its sequence for the same seed and differs for another", () => {
    const draw = (seed: number): number[] => {
      const rng = new Rng(seed);
      return Array.from({ length: 20 }, () => rng.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const value of draw(7)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });

  it("keeps integers within their inclusive bounds and reaches both ends", () => {
    const rng = new Rng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      seen.add(rng.int(3, 7));
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
  });

  it("shuffles without losing or duplicating items", () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const shuffled = new Rng(5).shuffle(items);
    expect(shuffled).not.toEqual(items);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items);
  });
});

describe("deriveSeed", () => {
  it("gives independent streams per label and index", () => {
    const seeds = new Set([
      deriveSeed(1, "folder", 0),
      deriveSeed(1, "folder", 1),
      deriveSeed(1, "parties"),
      deriveSeed(2, "folder", 0),
    ]);
    expect(seeds.size).toBe(4);
    expect(deriveSeed(1, "folder", 0)).toBe(deriveSeed(1, "folder", 0));
  });
});

describe("weightedSampler", () => {
  it("draws in proportion to the weights and never a zero-weight index", () => {
    const pick = weightedSampler([1, 0, 3]);
    const rng = new Rng(9);
    const counts = [0, 0, 0];
    for (let i = 0; i < 8000; i++) {
      const index = pick(rng);
      counts[index] = (counts[index] ?? 0) + 1;
    }
    expect(counts[1]).toBe(0);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeGreaterThan(2.6);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeLessThan(3.4);
  });
});
