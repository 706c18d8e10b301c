/**
 * Europe/Madrid wall time for the synthetic feed. PLACSP writes instants with the peninsular offset
 * (`2025-07-18T13:25:26.131+02:00`), dates and deadlines as offset-less local values, and names page files
 * after local time. The generator formats hundreds of thousands of values, so it applies the EU summer-time
 * rule directly (in force unchanged since 1996) instead of going through `Intl` for each one.
 */

export const DAY_MS = 86_400_000;

/** Last Sunday of `month` (0-based) in `year`, 01:00 UTC: when EU summer time starts or ends. */
function lastSundayAt0100Utc(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month + 1, 0));
  return Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay(), 1);
}

/** Offset of Madrid from UTC at an instant, in minutes: 120 in summer, 60 in winter. */
export function madridOffsetMinutes(ms: number): number {
  const year = new Date(ms).getUTCFullYear();
  const summer = ms >= lastSundayAt0100Utc(year, 2) && ms < lastSundayAt0100Utc(year, 9);
  return summer ? 120 : 60;
}

/** Local calendar day of an instant, as days since 1970-01-01. */
export function localDay(ms: number): number {
  return Math.floor((ms + madridOffsetMinutes(ms) * 60_000) / DAY_MS);
}

/**
 * The instant of a local wall time (day number + milliseconds since local midnight). The offset is taken an
 * hour before, which is only ambiguous inside the yearly DST changeover hour: harmless for test data.
 */
export function localInstant(day: number, msOfDay: number): number {
  const wall = day * DAY_MS + msOfDay;
  return wall - madridOffsetMinutes(wall - 3_600_000) * 60_000;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/** `YYYY-MM-DD` of a local day number. */
export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `2025-07-18T13:25:26.131+02:00`, the shape of `atom:updated` and tombstone `when`. */
export function formatInstant(ms: number): string {
  const offset = madridOffsetMinutes(ms);
  const wall = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
  return `${wall}+${pad(offset / 60)}:00`;
}

/** `20250718_132526`: the local-time stamp in archived page file names. */
export function fileStamp(ms: number): string {
  const wall = new Date(ms + madridOffsetMinutes(ms) * 60_000).toISOString();
  return `${wall.slice(0, 4)}${wall.slice(5, 7)}${wall.slice(8, 10)}_${wall.slice(11, 13)}${wall.slice(14, 16)}${wall.slice(17, 19)}`;
}

/** `2025-08-14+02:00`: PLACSP's `cbc-place-ext:SendDate` is an `xs:date` with the offset of that day. */
export function formatDayWithOffset(day: number): string {
  const offset = madridOffsetMinutes(localInstant(day, 12 * 3_600_000));
  return `${formatDay(day)}+${pad(offset / 60)}:00`;
}

/** The year of a local day number. */
export function yearOf(day: number): number {
  return new Date(day * DAY_MS).getUTCFullYear();
}
