import { describe, expect, it } from "vitest";
import { escapeAttr, escapeText, formatAmount } from "./xml.ts";

describe("escaping", () => {
  it("escapes markup in text and quotes in attributes", () => {
    expect(escapeText('Gómez & Ruiz <Sistemas> "SL"')).toBe('Gómez &amp; Ruiz &lt;Sistemas&gt; "SL"');
    expect(escapeAttr('a&b="c"')).toBe("a&amp;b=&quot;c&quot;");
  });
});

describe("formatAmount", () => {
  it("writes plain decimals without trailing zeros, as PLACSP does", () => {
    expect(formatAmount(235950)).toBe("235950");
    expect(formatAmount(57293.5)).toBe("57293.5");
    expect(formatAmount(224002.34)).toBe("224002.34");
    expect(formatAmount(0.1 + 0.2)).toBe("0.3");
    expect(formatAmount(12_500_000)).toBe("12500000");
  });
});
