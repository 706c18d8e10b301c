import { timeZoneOffsetMinutes } from "./dates.ts";

/**
 * Calendar arithmetic on `YYYY-MM-DD` dates, in UTC so that no time zone or daylight-saving change can move a
 * day. Used by the renewal analytics, whose outputs must be the same bytes on every machine.
 */

const DAY_MS = 86_400_000;
/** The mean Gregorian month (365.25 / 12 days), the unit of fractional durations and of buyer recurrence. */
export const DAYS_PER_MONTH = 30.4375;

function toUtcMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

function fromUtcMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return fromUtcMs(toUtcMs(date) + Math.round(days) * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((toUtcMs(to) - toUtcMs(from)) / DAY_MS);
}

/**
 * `date` plus `months`. Whole months are calendar months, the day clamped to the target month's length
 * (2025-01-31 + 1 = 2025-02-28), as a contract "of 12 months from 15 March" ends on 15 March; a fractional
 * duration (a period published in days, normalized to months) is converted back to days at 30.4375 per month.
 */
export function addMonths(date: string, months: number): string {
  if (!Number.isInteger(months)) {
    return addDays(date, months * DAYS_PER_MONTH);
  }
  const [year = 0, month = 1, day = 1] = date.split("-").map(Number);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = index - targetYear * 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  return fromUtcMs(Date.UTC(targetYear, targetMonth, Math.min(day, lastDay)));
}

/** The median of a non-empty list of numbers (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** PLACSP publication dates are Spanish calendar dates: "today" for the service is the calendar date in Madrid. */
const CALENDAR_TIME_ZONE = "Europe/Madrid";

/** The calendar date in Madrid at `instant`: the "today" that windows and opportunity ages are measured from. */
export function calendarDate(instant: Date): string {
  const offsetMs = timeZoneOffsetMinutes(instant.getTime(), CALENDAR_TIME_ZONE) * 60_000;
  return new Date(instant.getTime() + offsetMs).toISOString().slice(0, 10);
}
