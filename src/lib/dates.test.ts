import { describe, expect, it } from "vitest";
import { parseIsoDate, parseIsoInstant, timeZoneOffsetMinutes, zonedDateTimeToInstant } from "./dates.ts";

const MADRID = "Europe/Madrid";

describe("parseIsoDate", () => {
  it("accepts calendar dates and drops an xs:date offset", () => {
    expect(parseIsoDate("2025-07-18")).toBe("2025-07-18");
    expect(parseIsoDate(" 2025-08-14+02:00 ")).toBe("2025-08-14");
    expect(parseIsoDate("2025-08-14Z")).toBe("2025-08-14");
    expect(parseIsoDate("2024-02-29")).toBe("2024-02-29");
  });

  it("rejects anything that is not a real date in ISO form", () => {
    expect(parseIsoDate("2025-02-29")).toBeNull();
    expect(parseIsoDate("2025-13-01")).toBeNull();
    expect(parseIsoDate("18/07/2025")).toBeNull();
    expect(parseIsoDate("2025-7-18")).toBeNull();
    expect(parseIsoDate("")).toBeNull();
  });
});

describe("parseIsoInstant", () => {
  it("converts offset date-times to UTC with milliseconds", () => {
    expect(parseIsoInstant("2025-12-29T18:57:52.718+01:00")).toBe("2025-12-29T17:57:52.718Z");
    expect(parseIsoInstant("2025-08-18T09:00:00.000+02:00")).toBe("2025-08-18T07:00:00.000Z");
    expect(parseIsoInstant("2025-08-18T09:00:00Z")).toBe("2025-08-18T09:00:00.000Z");
    expect(parseIsoInstant("2025-01-01T00:30:00.123456789+01:00")).toBe("2024-12-31T23:30:00.123Z");
  });

  it("rejects local times and impossible values", () => {
    expect(parseIsoInstant("2025-08-18T09:00:00")).toBeNull();
    expect(parseIsoInstant("2025-02-30T09:00:00Z")).toBeNull();
    expect(parseIsoInstant("2025-08-18T25:00:00Z")).toBeNull();
    expect(parseIsoInstant("2025-08-18 09:00:00+02:00")).toBeNull();
    expect(parseIsoInstant("yesterday")).toBeNull();
  });
});

describe("zonedDateTimeToInstant (Europe/Madrid)", () => {
  it("uses +01:00 in winter and +02:00 in summer", () => {
    expect(zonedDateTimeToInstant("2025-12-22", "09:30:00", MADRID)).toBe("2025-12-22T08:30:00.000Z");
    expect(zonedDateTimeToInstant("2025-06-12", "15:00:00", MADRID)).toBe("2025-06-12T13:00:00.000Z");
    expect(zonedDateTimeToInstant("2025-06-12", "15:00", MADRID)).toBe("2025-06-12T13:00:00.000Z");
    expect(timeZoneOffsetMinutes(Date.UTC(2025, 0, 15), MADRID)).toBe(60);
    expect(timeZoneOffsetMinutes(Date.UTC(2025, 6, 15), MADRID)).toBe(120);
  });

  it("handles the spring-forward day (2025-03-30, 02:00 CET -> 03:00 CEST)", () => {
    expect(zonedDateTimeToInstant("2025-03-30", "01:59:59", MADRID)).toBe("2025-03-30T00:59:59.000Z");
    expect(zonedDateTimeToInstant("2025-03-30", "03:00:00", MADRID)).toBe("2025-03-30T01:00:00.000Z");
    // 02:30 does not exist that night: moved forward by the gap, to 03:30 CEST.
    expect(zonedDateTimeToInstant("2025-03-30", "02:30:00", MADRID)).toBe("2025-03-30T01:30:00.000Z");
  });

  it("handles the fall-back day (2025-10-26, 03:00 CEST -> 02:00 CET)", () => {
    expect(zonedDateTimeToInstant("2025-10-26", "01:59:00", MADRID)).toBe("2025-10-25T23:59:00.000Z");
    // 02:30 happens twice: the first occurrence (still summer time, +02:00) is taken.
    expect(zonedDateTimeToInstant("2025-10-26", "02:30:00", MADRID)).toBe("2025-10-26T00:30:00.000Z");
    expect(zonedDateTimeToInstant("2025-10-26", "03:00:00", MADRID)).toBe("2025-10-26T02:00:00.000Z");
    expect(zonedDateTimeToInstant("2025-10-26", "23:59:59", MADRID)).toBe("2025-10-26T22:59:59.000Z");
  });

  it("honours an explicit offset on the time over the zone", () => {
    expect(zonedDateTimeToInstant("2025-06-12", "15:00:00+01:00", MADRID)).toBe("2025-06-12T14:00:00.000Z");
    expect(zonedDateTimeToInstant("2025-06-12", "15:00:00Z", MADRID)).toBe("2025-06-12T15:00:00.000Z");
  });

  it("returns null for invalid dates or times", () => {
    expect(zonedDateTimeToInstant("2025-02-30", "10:00:00", MADRID)).toBeNull();
    expect(zonedDateTimeToInstant("2025-06-12", "24:00:00", MADRID)).toBeNull();
    expect(zonedDateTimeToInstant("2025-06-12", "9:30", MADRID)).toBeNull();
    expect(zonedDateTimeToInstant("2025-06-12", "15h", MADRID)).toBeNull();
  });
});
