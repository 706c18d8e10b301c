/** Caveat lines for `meta.caveats`: what a number does and does not include, stated where it is served. */

/** The tender endpoint's words, for lists that show award values: framework values are ceilings. */
export const FRAMEWORK_CEILING_CAVEAT =
  "Framework agreement award values are ceilings (maximum spend allowed), not amounts spent; never sum them as spend.";

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Caveats of an aggregate whose sums (`sums`, e.g. "total_awarded_value and every total_value") leave out
 * framework ceilings (always stated, with the number left out, even 0) and values in currencies other than EUR
 * (stated when there are any).
 */
export function valueSumCaveats(sums: string, ceilings: number, nonEur: number): string[] {
  const caveats = [
    "Framework agreement award values are ceilings (maximum spend allowed), not amounts spent, so they are " +
      `excluded from ${sums} (${count(ceilings, "ceiling", "ceilings")} left out).`,
  ];
  if (nonEur > 0) {
    caveats.push(
      `Only EUR amounts are added up in ${sums}: ${count(nonEur, "award value", "award values")} in other ` +
        "currencies left out (never converted).",
    );
  }
  return caveats;
}
