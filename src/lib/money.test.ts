import { describe, expect, it } from "vitest";
import { centsToUsd, centsToUsdcUnits, usdToCents } from "./money.ts";

describe("money", () => {
  it("formats cents as two-decimal dollars", () => {
    expect(centsToUsd(0)).toBe("0.00");
    expect(centsToUsd(2)).toBe("0.02");
    expect(centsToUsd(50)).toBe("0.50");
    expect(centsToUsd(2500)).toBe("25.00");
    expect(centsToUsd(123456)).toBe("1234.56");
  });

  it("refuses amounts that are not whole non-negative cents", () => {
    expect(() => centsToUsd(1.5)).toThrow(RangeError);
    expect(() => centsToUsd(-1)).toThrow(RangeError);
  });

  it("parses dollar strings exactly", () => {
    expect(usdToCents("0.02")).toBe(2);
    expect(usdToCents("5")).toBe(500);
    expect(usdToCents("0.5")).toBe(50);
    expect(() => usdToCents("0.021")).toThrow(RangeError);
    expect(() => usdToCents("abc")).toThrow(RangeError);
  });

  it("converts cents to USDC atomic units (6 decimals)", () => {
    expect(centsToUsdcUnits(2)).toBe("20000");
    expect(centsToUsdcUnits(2500)).toBe("25000000");
  });
});
