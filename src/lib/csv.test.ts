import { describe, expect, it } from "vitest";
import { parseCsv, parseCsvRecords } from "./csv.ts";

describe("parseCsv", () => {
  it("handles quoted fields with commas, doubled quotes and line breaks", () => {
    const text = 'a,b,c\r\n1,"x, y","say ""hi"""\n2,"two\nlines",\n';
    expect(parseCsv(text)).toEqual([
      ["a", "b", "c"],
      ["1", "x, y", 'say "hi"'],
      ["2", "two\nlines", ""],
    ]);
  });

  it("skips a BOM and blank lines, keeps a last line without newline", () => {
    expect(parseCsv("\uFEFFa,b\n\n1,2")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("rejects an unterminated quote instead of guessing", () => {
    expect(() => parseCsv('a\n"open')).toThrow(/quoted field/);
  });

  it("keys records by header", () => {
    expect(parseCsvRecords("code,label\n72000000,IT\n")).toEqual([{ code: "72000000", label: "IT" }]);
  });
});
