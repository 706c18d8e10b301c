import { describe, expect, it } from "vitest";
import { timeZoneOffsetMinutes } from "../../lib/dates.ts";
import {
  fileStamp,
  formatDay,
  formatDayWithOffset,
  formatInstant,
  localDay,
  localInstant,
  madridOffsetMinutes,
} from "./time.ts";

describe("Madrid time", () => {
  it("agrees with the IANA zone every six hours from 2018 to 2027, across every DST change", () => {
    const start = Date.UTC(2018, 0, 1);
    const end = Date.UTC(2028, 0, 1);
    for (let ms = start; ms < end; ms += 6 * 3_600_000 + 7 * 60_000) {
      expect(madridOffsetMinutes(ms)).toBe(timeZoneOffsetMinutes(ms, "Europe/Madrid"));
    }
  });

  it("switches exactly at 01:00 UTC on the last Sundays of March and October", () => {
    expect(madridOffsetMinutes(Date.UTC(2025, 2, 30, 0, 59, 59))).toBe(60);
    expect(madridOffsetMinutes(Date.UTC(2025, 2, 30, 1, 0, 0))).toBe(120);
    expect(madridOffsetMinutes(Date.UTC(2025, 9, 26, 0, 59, 59))).toBe(120);
    expect(madridOffsetMinutes(Date.UTC(2025, 9, 26, 1, 0, 0))).toBe(60);
  });

  it("formats instants, dates and file stamps the way PLACSP does", () => {
    const summer = Date.parse("2025-07-18T11:25:26.131Z");
    expect(formatInstant(summer)).toBe("2025-07-18T13:25:26.131+02:00");
    expect(fileStamp(summer)).toBe("20250718_132526");
    const winter = Date.parse("2025-12-29T23:30:00.000Z");
    expect(formatInstant(winter)).toBe("2025-12-30T00:30:00.000+01:00");
    expect(formatDay(localDay(winter))).toBe("2025-12-30");
    expect(formatDayWithOffset(localDay(summer))).toBe("2025-07-18+02:00");
  });

  it("turns a local day and time back into the instant", () => {
    const day = localDay(Date.parse("2025-08-14T10:00:00Z"));
    expect(new Date(localInstant(day, 9 * 3_600_000)).toISOString()).toBe("2025-08-14T07:00:00.000Z");
    const winterDay = localDay(Date.parse("2025-01-14T10:00:00Z"));
    expect(new Date(localInstant(winterDay, 9 * 3_600_000)).toISOString()).toBe("2025-01-14T08:00:00.000Z");
  });
});
