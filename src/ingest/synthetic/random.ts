/**
 * Seeded randomness for the synthetic corpus. Everything the generator draws comes from here, so a seed and
 * the options fully determine the output bytes (no `Math.random`, no clock).
 *
 * Independent streams are derived from the seed and a label (`deriveSeed(seed, "folder", 42)`), so that
 * what one folder draws does not depend on how many numbers earlier folders or pages consumed: changing
 * one distribution then changes only what uses it.
 */

/** mulberry32: tiny, fast and good enough for test data; not for anything secret. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) {
      throw new Error("cannot pick from an empty list");
    }
    return item;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const a = out[i];
      const b = out[j];
      if (a !== undefined && b !== undefined) {
        out[i] = b;
        out[j] = a;
      }
    }
    return out;
  }

  /** Picks by relative weight: `weighted([["1", 40], ["9", 30]])`. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of choices) {
      total += weight;
    }
    let r = this.next() * total;
    for (const [value, weight] of choices) {
      r -= weight;
      if (r < 0) {
        return value;
      }
    }
    const last = choices[choices.length - 1];
    if (last === undefined) {
      throw new Error("cannot pick from an empty list");
    }
    return last[0];
  }

  /** Standard normal (Box–Muller; one value per call keeps the stream simple to reason about). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with the given median: amounts are multiplicative, so this is their natural shape. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Pareto with minimum 1: the heavy tail that makes a few buyers and winners dominate. */
  pareto(alpha: number): number {
    return (1 - this.next()) ** (-1 / alpha);
  }

  /** Exponential with the given mean: gaps between independent events. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** `count` pseudo-random bytes (document hashes, link tokens). */
  bytes(count: number): Uint8Array {
    const out = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      out[i] = Math.floor(this.next() * 256);
    }
    return out;
  }
}

/** A seed for an independent stream: FNV-1a over the parts, then a murmur3 finalizer to spread the bits. */
export function deriveSeed(seed: number, ...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of [seed, ...parts]) {
    const s = `${part}\u0000`;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Index sampler over fixed weights (cumulative table + binary search): the buyer and winner pools are drawn
 * from tens of thousands of times, so a linear scan per draw would dominate generation time.
 */
export function weightedSampler(weights: readonly number[]): (rng: Rng) => number {
  if (weights.length === 0) {
    throw new Error("cannot sample from an empty list");
  }
  const cumulative: number[] = [];
  let total = 0;
  for (const weight of weights) {
    total += weight;
    cumulative.push(total);
  }
  return (rng) => {
    const r = rng.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] ?? total) > r) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
}
