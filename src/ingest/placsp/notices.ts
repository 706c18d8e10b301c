import type { FieldError } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { child, children, pathAll, text } from "../xml/element.ts";
import { cacExt, cbc, cbcExt } from "./namespaces.ts";
import { readDate } from "./values.ts";

/**
 * `cac-place-ext:ValidNoticeInfo`: one block per (notice type, publication medium), each with the dates the
 * notice was issued on that medium. Two tender fields come from them: the current notice type and the
 * date of first publication.
 */

interface NoticeIssue {
  code: string | null;
  media: string | null;
  date: string;
}

/** The buyer's own profile on PLACSP; compared case-insensitively, as OpenPLACSP does. */
const PROFILE_MEDIA = "perfil del contratante";

/**
 * Where a notice type sits in a procedure's life, to break ties between notices issued the same day (a
 * contract notice and its tender documents usually are): the later stage wins. Cancellations outrank
 * everything, since they end the procedure. Codes not listed rank lowest but are still returned.
 */
const NOTICE_STAGE: Readonly<Record<string, number>> = {
  DOC_PIN: 1,
  DOC_PIN_RTL: 1,
  DOC_CON: 1,
  DOC_CD: 2,
  DOC_DD: 2,
  DOC_ATPV: 3,
  DOC_CN: 3,
  DOC_CAN_PROV: 4,
  DOC_CAN_ADJ: 5,
  DOC_CAN_DEF: 5,
  DOC_FORM: 6,
  DOC_FORM_ENC: 6,
  PRO_FORM_ENC: 6,
  DOC_MOD: 7,
  DOC_CCN: 8,
  DESISTIMIENTO: 9,
  RENUNCIA: 9,
};

function stageOf(code: string): number {
  if (code.startsWith("ANUL")) {
    return 10;
  }
  return Object.hasOwn(NOTICE_STAGE, code) ? (NOTICE_STAGE[code] ?? 0) : 0;
}

/** Every (notice type, medium, issue date) of the folder; unparseable dates are reported and skipped. */
export function readNoticeIssues(cfs: XmlElement | null, errors: FieldError[]): NoticeIssue[] {
  const issues: NoticeIssue[] = [];
  for (const [i, info] of children(cfs, ...cacExt("ValidNoticeInfo")).entries()) {
    const code = text(child(info, ...cbcExt("NoticeTypeCode")));
    for (const status of children(info, ...cacExt("AdditionalPublicationStatus"))) {
      const media = text(child(status, ...cbcExt("PublicationMediaName")));
      const dates = pathAll(status, [cacExt("AdditionalPublicationDocumentReference"), cbc("IssueDate")]);
      for (const dateEl of dates) {
        const date = readDate(dateEl, `validNoticeInfo[${i}].issueDate`, errors);
        if (date !== null) {
          issues.push({ code, media, date });
        }
      }
    }
  }
  return issues;
}

/**
 * The notice type of the most recently issued notice, on any medium (a DOUE publication of the contract
 * award notice counts as much as the profile one). Ties on the date go to the later stage of the
 * procedure (`NOTICE_STAGE`). Null when no notice has a type and an issue date.
 */
export function currentNoticeType(issues: readonly NoticeIssue[]): string | null {
  let best: { code: string; date: string; stage: number } | null = null;
  for (const issue of issues) {
    if (issue.code === null) {
      continue;
    }
    const stage = stageOf(issue.code);
    if (!best || issue.date > best.date || (issue.date === best.date && stage > best.stage)) {
      best = { code: issue.code, date: issue.date, stage };
    }
  }
  return best?.code ?? null;
}

/**
 * OpenPLACSP's "Primera publicación": the earliest issue date, on the buyer profile ("Perfil del
 * contratante", case-insensitive), of any notice other than a prior-information notice (DOC_PIN).
 */
export function firstPublicationDate(issues: readonly NoticeIssue[]): string | null {
  let first: string | null = null;
  for (const issue of issues) {
    if (issue.code === "DOC_PIN" || issue.media?.toLowerCase() !== PROFILE_MEDIA) {
      continue;
    }
    if (first === null || issue.date < first) {
      first = issue.date;
    }
  }
  return first;
}
