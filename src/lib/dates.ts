/**
 * Date and time parsing for upstream feeds, strict by design: a value either parses exactly or is null
 * (callers then record a field error). Instants are always returned as UTC `…Z` strings with milliseconds
 * (`Date#toISOString`), so two instants compare correctly as strings whatever offset they were published in.
 *
 * Local wall-clock times (PLACSP deadlines are offset-less Spanish peninsular time) are converted with the
 * platform's time-zone data through `Intl.DateTimeFormat`, with no time-zone library.
 */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:Z|[+-]\d{2}:\d{2})?$/;
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;
const INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/**
 * `2025-07-18` -> `2025-07-18`. An `xs:date` time-zone suffix (`2025-08-14+02:00`, as PLACSP SendDate
 * carries) is dropped: the calendar date is what was published. Null unless it is a real calendar date.
 */
export function parseIsoDate(raw: string): string | null {
  const civil = parseCivilDate(raw.trim());
  if (!civil) {
    return null;
  }
  return formatCivilDate(civil);
}

/**
 * An ISO 8601 date-time **with** `Z` or an offset -> the same instant as a UTC `…Z` string.
 * `2025-12-29T18:57:52.718+01:00` -> `2025-12-29T17:57:52.718Z`. Null when there is no offset (a local
 * time is not an instant) or the value is not a real date-time.
 */
export function parseIsoInstant(raw: string): string | null {
  const value = raw.trim();
  if (!INSTANT_RE.test(value)) {
    return null;
  }
  const [datePart = "", timePart = ""] = value.split("T");
  return zonedDateTimeToInstant(datePart, timePart, "UTC");
}

/**
 * A wall-clock date and time in `timeZone` -> the instant, as a UTC `…Z` string.
 * `time` is `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fff`; if it carries its own `Z`/offset, that offset wins over
 * the zone. Daylight-saving edges follow the usual "compatible" rule (as `Temporal` does): a time skipped by
 * the spring-forward gap is moved forward by the gap (02:30 -> 03:30 local), and a time that occurs twice in
 * the autumn overlap resolves to the first occurrence (summer time). Null if date or time is invalid.
 */
export function zonedDateTimeToInstant(date: string, time: string, timeZone: string): string | null {
  const civil = parseCivilDate(date.trim());
  const match = TIME_RE.exec(time.trim());
  if (!civil || !match || !validTime(match)) {
    return null;
  }
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3] ?? "0");
  const millis = Number((match[4] ?? "0").slice(0, 3).padEnd(3, "0"));
  const wallMs = utcMs(civil, hour, minute, second, millis);
  const explicitOffset = match[5];
  if (explicitOffset !== undefined) {
    return new Date(wallMs - offsetMinutesOf(explicitOffset) * 60_000).toISOString();
  }
  return new Date(resolveWallTime(wallMs, timeZone)).toISOString();
}

/** Offset of `timeZone` from UTC at an instant, in minutes (Europe/Madrid: 60 in winter, 120 in summer). */
export function timeZoneOffsetMinutes(instantMs: number, timeZone: string): number {
  return offsetMs(instantMs, timeZone) / 60_000;
}

/** The instant whose wall-clock reading in `timeZone` is `wallMs` (wall time encoded as if it were UTC). */
function resolveWallTime(wallMs: number, timeZone: string): number {
  // A zone's offset changes at most once within two days, so the offsets one day either side are the only
  // candidates. A candidate is valid when the zone really has that offset at the resulting instant.
  const before = offsetMs(wallMs - DAY_MS, timeZone);
  const after = offsetMs(wallMs + DAY_MS, timeZone);
  const valid = [...new Set([before, after])]
    .map((offset) => wallMs - offset)
    .filter((instant) => offsetMs(instant, timeZone) === wallMs - instant)
    .sort((a, b) => a - b);
  const earliest = valid[0];
  if (earliest !== undefined) {
    return earliest;
  }
  // In the gap: read the wall time with the offset in force before the transition, i.e. shift it forward.
  return wallMs - before;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
// Intl formatting costs ~50 µs; zone offsets only change on a quarter-hour boundary, so one lookup per zone
// and quarter hour is exact. Bounded so a long run cannot grow it without limit.
const offsetCache = new Map<string, number>();
const QUARTER_HOUR_MS = 15 * 60_000;

function offsetMs(instantMs: number, timeZone: string): number {
  const key = `${timeZone}|${Math.floor(instantMs / QUARTER_HOUR_MS)}`;
  const cached = offsetCache.get(key);
  if (cached !== undefined) {
    return cached;
  }
  if (offsetCache.size > 50_000) {
    offsetCache.clear();
  }
  const offset = computeOffsetMs(instantMs, timeZone);
  offsetCache.set(key, offset);
  return offset;
}

function computeOffsetMs(instantMs: number, timeZone: string): number {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, formatter);
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(instantMs))) {
    if (part.type !== "literal") {
      parts[part.type] = Number(part.value);
    }
  }
  const wall = utcMs(
    { year: parts.year ?? 0, month: parts.month ?? 1, day: parts.day ?? 1 },
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
    0,
  );
  // Intl works in whole seconds: compare against the instant truncated to its second.
  return wall - (instantMs - (((instantMs % 1000) + 1000) % 1000));
}

function utcMs(civil: CivilDate, hour: number, minute: number, second: number, millis: number): number {
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  date.setUTCFullYear(civil.year, civil.month - 1, civil.day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

function parseCivilDate(raw: string): CivilDate | null {
  const match = DATE_RE.exec(raw);
  if (!match) {
    return null;
  }
  const civil = { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
  const check = new Date(utcMs(civil, 0, 0, 0, 0));
  if (
    check.getUTCFullYear() !== civil.year ||
    check.getUTCMonth() !== civil.month - 1 ||
    check.getUTCDate() !== civil.day
  ) {
    return null;
  }
  return civil;
}

function formatCivilDate(civil: CivilDate): string {
  const pad = (n: number, width: number): string => n.toString().padStart(width, "0");
  return `${pad(civil.year, 4)}-${pad(civil.month, 2)}-${pad(civil.day, 2)}`;
}

function validTime(match: RegExpExecArray): boolean {
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3] ?? "0");
  const offset = match[5];
  if (offset !== undefined && offset !== "Z" && Math.abs(offsetMinutesOf(offset)) > 14 * 60) {
    return false;
  }
  return hour <= 23 && minute <= 59 && second <= 59;
}

function offsetMinutesOf(offset: string): number {
  if (offset === "Z") {
    return 0;
  }
  const sign = offset.startsWith("-") ? -1 : 1;
  const [hours = "0", minutes = "0"] = offset.slice(1).split(":");
  return sign * (Number(hours) * 60 + Number(minutes));
}
