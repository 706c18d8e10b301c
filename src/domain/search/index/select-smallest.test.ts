import { describe, expect, it } from "vitest";
import { selectSmallest } from "./select-smallest.ts";

describe("selectSmallest", () => {
  it("puts the k smallest distinct keys first, for every k, on shuffled, sorted and reversed input", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const base = Float64Array.from(new Set(Array.from({ length: 300 }, random)));
    const sorted = Float64Array.from(base).sort();
    const inputs = [base, sorted, Float64Array.from(sorted).reverse(), Float64Array.of(7)];
    for (const input of inputs) {
      const expected = Float64Array.from(input).sort();
      for (let k = 1; k <= input.length; k++) {
        const keys = Float64Array.from(input);
        selectSmallest(keys, k);
        expect(Array.from(keys.subarray(0, k).sort())).toEqual(Array.from(expected.subarray(0, k)));
      }
    }
  });
});
