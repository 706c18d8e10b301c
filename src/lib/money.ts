/**
 * Money is exact: prices and balances are integer USD cents inside the service and decimal strings only at
 * the edge. x402 amounts are USDC atomic units (6 decimals), so one cent is 10,000 units.
 */

const USDC_UNITS_PER_CENT = 10_000n;

/** 2 -> "0.02", 500 -> "5.00". Throws on a non-integer or negative amount: that is a programming error. */
export function centsToUsd(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new RangeError(`cents must be a non-negative safe integer, got ${cents}`);
  }
  const whole = Math.floor(cents / 100);
  const rest = cents % 100;
  return `${whole}.${rest.toString().padStart(2, "0")}`;
}

/** "0.02" -> 2. Accepts at most two decimals; anything else is not a price. */
export function usdToCents(usd: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(usd);
  if (!match) {
    throw new RangeError(`not a USD amount with at most two decimals: ${usd}`);
  }
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? "0").padEnd(2, "0"));
  return whole * 100 + fraction;
}

/** USDC atomic units (string, as x402 carries them) for an amount in cents. */
export function centsToUsdcUnits(cents: number): string {
  return (BigInt(cents) * USDC_UNITS_PER_CENT).toString();
}

/** 2900 EUR cents -> "29.00". Same format as USD; named for the call sites that mean euros. */
export const centsToDecimal = centsToUsd;
