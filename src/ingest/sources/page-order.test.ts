import { describe, expect, it } from "vitest";
import { comparePageNames, isAtomPageName } from "./page-order.ts";

describe("comparePageNames", () => {
  it("puts the head first, then timestamps newest first, then slices _1, _2, … of one timestamp", () => {
    const names = [
      "licitacionesPerfilesContratanteCompleto3_20210104_150033_1.atom",
      "licitacionesPerfilesContratanteCompleto3_20201231_173132.atom",
      "licitacionesPerfilesContratanteCompleto3.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033_10.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033_2.atom",
      "licitacionesPerfilesContratanteCompleto3_20210105_000001.atom",
    ];
    expect([...names].sort(comparePageNames)).toEqual([
      "licitacionesPerfilesContratanteCompleto3.atom",
      "licitacionesPerfilesContratanteCompleto3_20210105_000001.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033_1.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033_2.atom",
      "licitacionesPerfilesContratanteCompleto3_20210104_150033_10.atom",
      "licitacionesPerfilesContratanteCompleto3_20201231_173132.atom",
    ]);
  });

  it("orders by the file name, not the folder, and unstamped names by name descending", () => {
    const names = ["2020/feed_20201231_000000.atom", "b.atom", "2021/feed_20210101_000000.atom", "a.atom"];
    expect([...names].sort(comparePageNames)).toEqual([
      "b.atom",
      "a.atom",
      "2021/feed_20210101_000000.atom",
      "2020/feed_20201231_000000.atom",
    ]);
  });

  it("interleaves feeds by timestamp and breaks ties deterministically", () => {
    const names = ["A_20250101_000000.atom", "B_20250101_000000.atom", "A_20250102_000000.atom"];
    expect([...names].sort(comparePageNames)).toEqual([
      "A_20250102_000000.atom",
      "B_20250101_000000.atom",
      "A_20250101_000000.atom",
    ]);
  });
});

describe("isAtomPageName", () => {
  it("accepts .atom files only, skipping macOS debris", () => {
    expect(isAtomPageName("feed_20250101_000000.atom")).toBe(true);
    expect(isAtomPageName("2025/FEED.ATOM")).toBe(true);
    expect(isAtomPageName("feed.xml")).toBe(false);
    expect(isAtomPageName("feed.atom.zip")).toBe(false);
    expect(isAtomPageName("__MACOSX/2025/._feed.atom")).toBe(false);
    expect(isAtomPageName("._feed.atom")).toBe(false);
  });
});
