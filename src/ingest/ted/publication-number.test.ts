import { describe, expect, it } from "vitest";
import { normalizePublicationNumber, tedNoticeUrl } from "./publication-number.ts";

describe("normalizePublicationNumber", () => {
  it.each([
    // eForms efbc:NoticePublicationID, zero-padded to 8 digits (00611835-2024)
    ["00611835-2024", "611835-2024"],
    // Search API publication-number
    ["611835-2024", "611835-2024"],
    // R2.0.9 @DOC_ID, padded to 6 digits
    ["003543-2021", "3543-2021"],
    ["153579-2020", "153579-2020"],
    // R2.0.9 NO_DOC_OJS: year / S issue - number
    ["2020/S 064-153579", "153579-2020"],
    ["2021/S 003-003543", "3543-2021"],
    ["2024/S 198-611835", "611835-2024"],
    ["2024/s 198 - 00611835", "611835-2024"],
    // daily-package member names use an underscore
    ["00566194_2026", "566194-2026"],
    // surrounding whitespace
    ["  00191536-2024\n", "191536-2024"],
  ])("%j -> %j", (raw, expected) => {
    expect(normalizePublicationNumber(raw)).toBe(expected);
  });

  it.each([
    [null],
    [undefined],
    [""],
    ["611835"],
    ["611835-24"],
    ["0000-2024"],
    ["2024/S 198"],
    ["TED:NOTICE:153579-2020:TEXT:ES:HTML"],
    ["e9fc6881-2356-474d-b1ec-daeb28e23e44"],
    ["611835-2024-01"],
  ])("%j is not a publication number", (raw) => {
    expect(normalizePublicationNumber(raw)).toBeNull();
  });

  it("is idempotent", () => {
    expect(normalizePublicationNumber(normalizePublicationNumber("00611835-2024"))).toBe("611835-2024");
  });
});

describe("tedNoticeUrl", () => {
  it("builds the ted.europa.eu landing page from the canonical number", () => {
    expect(tedNoticeUrl("611835-2024")).toBe("https://ted.europa.eu/en/notice/-/detail/611835-2024");
  });
});
