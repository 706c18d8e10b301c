import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, pathAll, text } from "../xml/element.ts";
import { n2016, ted } from "./namespaces.ts";
import { paragraphs } from "./r209-form.ts";
import { fieldError, joinTexts, parseCpv, parseDate, parseNuts } from "./values.ts";

/** One `OBJECT_CONTRACT/OBJECT_DESCR` of an R2.0.9 form: a lot, or the whole object when not in lots. */
export interface R209Lot {
  /** `LOT_NO` as published (`1`), null when the procedure has no lots. */
  lotNo: string | null;
  /** `CPV_ADDITIONAL/CPV_CODE/@CODE` in order: 2014 forms give a lot no main CPV of its own. */
  cpvs: string[];
  /** First `n2016:NUTS/@CODE`. */
  nuts: string | null;
  durationMonths: number | null;
  startDate: string | null;
  endDate: string | null;
  /**
   * `OPTIONS_DESCR` (F02, F03), then `RENEWAL_DESCR` (F02), their `<P>` paragraphs joined as for other
   * texts, the two joined by `joinTexts`. A form marks "none" with `NO_OPTIONS` / `NO_RENEWAL` (every
   * fixture does), which gives null.
   */
  extensionText: string | null;
}

/** Months per `DURATION/@TYPE` (the form offers months and days only; days on a 365-day year). */
const MONTHS_PER_TYPE: Readonly<Record<string, number>> = { MONTH: 1, DAY: 12 / 365 };
const DURATION_RE = /^\d+(?:\.\d+)?$/;

/**
 * Every `OBJECT_DESCR` of the original form. `textObject` is the `OBJECT_CONTRACT` of the form chosen for
 * texts (r209-form.ts `selectForms`): a lot's texts come from its `OBJECT_DESCR` there (same `@ITEM`, else
 * same position, as translations repeat the original's structure), else from the original's.
 *
 * R2.0.9 has no structured extension period (`RENEWAL_DESCR` and `OPTIONS_DESCR` are free text only, and
 * `DURATION` is the contract's own), so extension months and end date are never read from these forms.
 */
export function readR209Lots(
  objectContract: XmlElement | null,
  errors: FieldError[],
  textObject: XmlElement | null = objectContract,
): R209Lot[] {
  const textDescrs = children(textObject, ...ted("OBJECT_DESCR"));
  return children(objectContract, ...ted("OBJECT_DESCR")).map((descr, i) => {
    const item = attr(descr, "ITEM");
    const textDescr =
      (item === null ? undefined : textDescrs.find((d) => attr(d, "ITEM") === item)) ??
      textDescrs[i] ??
      descr;
    const lotNo = text(child(descr, ...ted("LOT_NO")));
    const field = `lots[${lotNo ?? i}]`;
    const cpvs: string[] = [];
    const codes = pathAll(descr, [ted("CPV_ADDITIONAL"), ted("CPV_CODE")]);
    for (const [j, code] of codes.entries()) {
      const cpv = parseCpv(attr(code, "CODE"), `${field}.cpv[${j}]`, errors);
      if (cpv !== null && !cpvs.includes(cpv)) {
        cpvs.push(cpv);
      }
    }
    return {
      lotNo,
      cpvs,
      nuts: parseNuts(attr(child(descr, ...n2016("NUTS")), "CODE"), `${field}.nuts`, errors),
      durationMonths: readDuration(child(descr, ...ted("DURATION")), `${field}.duration`, errors),
      startDate: parseDate(text(child(descr, ...ted("DATE_START"))), `${field}.startDate`, errors),
      endDate: parseDate(text(child(descr, ...ted("DATE_END"))), `${field}.endDate`, errors),
      extensionText: joinTexts([
        paragraphs(child(textDescr, ...ted("OPTIONS_DESCR"))),
        paragraphs(child(textDescr, ...ted("RENEWAL_DESCR"))),
      ]),
    };
  });
}

function readDuration(el: XmlElement | null, field: string, errors: FieldError[]): number | null {
  const raw = text(el);
  if (raw === null) {
    return null;
  }
  const type = attr(el, "TYPE");
  const perType = type !== null && Object.hasOwn(MONTHS_PER_TYPE, type) ? MONTHS_PER_TYPE[type] : undefined;
  if (perType === undefined) {
    fieldError(errors, field, `unknown duration type ${type ?? "(none)"}`, raw);
    return null;
  }
  if (!DURATION_RE.test(raw)) {
    fieldError(errors, field, "not a duration", raw);
    return null;
  }
  const months = Math.round(Number(raw) * perType * 100) / 100;
  return months === 0 ? null : months;
}
