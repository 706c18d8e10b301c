import { zonedDateTimeToInstant } from "../../lib/dates.ts";
import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { child, text } from "../xml/element.ts";
import { cac, cbc } from "./namespaces.ts";
import { fieldError } from "./values.ts";

/**
 * PLACSP deadlines are an offset-less `EndDate` + `EndTime` in Spanish peninsular time, even for buyers in
 * the Canary Islands (their notices say "14:00 horas en Canarias" for a 15:00 deadline).
 */
export const PLACSP_TIME_ZONE = "Europe/Madrid";

/**
 * A deadline published without a time runs to the end of that day: the last second of it, local time.
 * (Reading it as midnight would close the tender a whole day early.)
 */
const END_OF_DAY = "23:59:59";

/**
 * The submission deadline as an instant: `TenderSubmissionDeadlinePeriod`, or for procedures in two stages
 * (restricted, negotiated) whose tender deadline is not yet known, the `ParticipationRequestReceptionPeriod`
 * one, which is the deadline a prospective bidder faces.
 */
export function readDeadline(tenderingProcess: XmlElement | null, errors: FieldError[]): string | null {
  const period =
    child(tenderingProcess, ...cac("TenderSubmissionDeadlinePeriod")) ??
    child(tenderingProcess, ...cac("ParticipationRequestReceptionPeriod"));
  const date = text(child(period, ...cbc("EndDate")));
  const time = text(child(period, ...cbc("EndTime")));
  if (date === null) {
    if (time !== null) {
      fieldError(errors, "deadline", "deadline time without a date", time);
    }
    return null;
  }
  const instant = zonedDateTimeToInstant(date, time ?? END_OF_DAY, PLACSP_TIME_ZONE);
  if (instant === null) {
    fieldError(errors, "deadline", "not a date and time", `${date} ${time ?? ""}`.trim());
  }
  return instant;
}
