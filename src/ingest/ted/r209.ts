import { type SourceCodes, sourceCodesOf } from "../../domain/vocabulary.ts";
import { zonedDateTimeToInstant } from "../../lib/dates.ts";
import type { FieldError, NormalizedTender, NormalizeResult } from "../model.ts";
import { mapCode } from "../vocabulary/map-code.ts";
import {
  R209_CONTRACT_TYPES,
  R209_FORM_NOTICE_TYPES,
  R209_NON_AWARD_OUTCOMES,
  R209_PROCEDURE_TYPES,
  TED_FORM_TYPES,
  TED_NOTICE_TYPES,
  type TedResult,
  tedContractType,
  tedStatus,
} from "../vocabulary/ted.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, text } from "../xml/element.ts";
import { localTimeZone } from "./countries.ts";
import { findPlacspReference } from "./cross-ref.ts";
import { TedNoticeError } from "./errors.ts";
import { isR209Root, NS, n2016, ted } from "./namespaces.ts";
import { normalizePublicationNumber, tedNoticeUrl } from "./publication-number.ts";
import { readR209Awards } from "./r209-awards.ts";
import { paragraphs, selectForms } from "./r209-form.ts";
import type { R209Lot } from "./r209-lots.ts";
import { readR209Lots } from "./r209-lots.ts";
import { readR209Buyer } from "./r209-parties.ts";
import {
  collapse,
  END_OF_DAY,
  fieldError,
  parseAmount,
  parseCpv,
  parseCurrency,
  parseDate,
  parseNuts,
} from "./values.ts";

/**
 * Maps one legacy TED-XML R2.0.9 notice (`TED_EXPORT` with an `F02_2014` contract notice or an `F03_2014`
 * award notice) to the same model as eforms.ts, with the same conventions wherever both formats carry a
 * value, so that a notice and its eForms conversion normalize alike. Coded fields go through their eForms
 * equivalent (OP's converter mapping) to the common vocabulary: `noticeType` (F02 → `cn-standard` →
 * `contract-notice`, F03 → `can-standard` → `award-notice`), `procedureType` (`PT_OPEN` → `open`, …),
 * `contractType` (`SERVICES` → `services`), award `resultCode` (see r209-awards.ts). `sourceCodes` keeps the
 * R2.0.9 originals: the form (`F03_2014`), the `PT_*` element, `CTYPE` and `LEGAL_BASIS`. `status`: F02 is
 * `open`; F03 is what its `AWARD_CONTRACT`s add up to (ingest/vocabulary/ted.ts `tedStatus`).
 *
 * Format-specific choices:
 * - `sourceRef`: `@DOC_ID`, else `NO_DOC_OJS`, normalized (`003543-2021` → `3543-2021`).
 * - `upstreamUpdated`: the OJ S publication day (`REF_OJS/DATE_PUB`) at 00:00 Luxembourg time (the OJ is
 *   published there), else the dispatch day (`DS_DATE_DISPATCH`).
 * - `deadline`: `DATE_RECEIPT_TENDERS` + `TIME_RECEIPT_TENDERS`, which carry no offset: read in the buyer
 *   country's time zone (countries.ts), a missing time meaning the end of the day.
 * - `estimatedValue`: `OBJECT_CONTRACT/VAL_ESTIMATED_TOTAL` only; F03's `VAL_TOTAL` is the total awarded
 *   (in a framework, the ceiling) and is never an estimate.
 * - `nuts`: the first lot's `n2016:NUTS`, else the coded `PERFORMANCE_NUTS`. R2.0.9 NUTS codes are kept as
 *   published (`UK`, `ES51`).
 * - `durationMonths`: the longest lot `DURATION` (F02).
 * - texts: `<P>` paragraphs joined with one space; read from the Spanish or English translation when the
 *   notice has one (EU institutions), else from the original. That includes a lot's extension text
 *   (`OPTIONS_DESCR`, `RENEWAL_DESCR`; r209-lots.ts), the only extension fact these forms publish.
 *
 * Throws `TedNoticeError` when `root` is not `TED_EXPORT`, holds a form other than F02/F03, or has no
 * publication number or date.
 */
export function normalizeR209Notice(root: XmlElement): NormalizeResult {
  if (!isR209Root(root.ns, root.name)) {
    throw new TedNoticeError(
      `not a TED R2.0.9 notice: root element is <${root.name}> in namespace "${root.ns}"`,
    );
  }
  const forms = selectForms(root);
  // The forms read are the ones with an eForms notice type (ingest/vocabulary/ted.ts).
  if (forms === null || !Object.hasOwn(R209_FORM_NOTICE_TYPES, forms.original.name)) {
    throw new TedNoticeError(
      `unsupported R2.0.9 form ${forms?.original.name ?? "(none)"}: only F02_2014 and F03_2014 are read`,
    );
  }
  const form = forms.original;
  const errors: FieldError[] = [];
  const coded = child(root, ...ted("CODED_DATA_SECTION"));
  const identity = readIdentity(root, coded, errors);

  const object = child(form, ...ted("OBJECT_CONTRACT"));
  const textObject = child(forms.texts, ...ted("OBJECT_CONTRACT"));
  const lots = readR209Lots(object, errors, textObject);
  const cpvMain = parseCpv(attr(path(object, [ted("CPV_MAIN"), ted("CPV_CODE")]), "CODE"), "cpvMain", errors);
  const cpvAll = [...new Set([...(cpvMain === null ? [] : [cpvMain]), ...lots.flatMap((lot) => lot.cpvs)])];
  const procedure = child(form, ...ted("PROCEDURE"));
  const framework = child(procedure, ...ted("FRAMEWORK")) !== null;
  const estimated = child(object, ...ted("VAL_ESTIMATED_TOTAL"));
  const estimatedValue = parseAmount(text(estimated), "estimatedValue", errors);
  const buyer = readR209Buyer(form, errors);
  const sourceCodes = readSourceCodes(form, object, procedure);
  const eformsNotice = R209_FORM_NOTICE_TYPES[form.name] ?? null;
  const awards = readR209Awards(
    form,
    {
      framework,
      cpvMain: cpvMain ?? cpvAll[0] ?? null,
      lots: new Map(lots.flatMap((lot) => (lot.lotNo === null ? [] : [[lot.lotNo, lot] as const]))),
    },
    errors,
  );

  const tender: NormalizedTender = {
    source: "ted",
    sourceRef: identity.sourceRef,
    feed: null,
    folderId: text(child(object, ...ted("REFERENCE_NUMBER"))),
    upstreamUpdated: identity.upstreamUpdated,
    noticeType: mapCode(TED_NOTICE_TYPES, eformsNotice, "noticeType", "the eForms notice-type list", errors),
    publicationDate: identity.publicationDate,
    title: collapse(paragraphs(child(textObject, ...ted("TITLE")))),
    description: paragraphs(child(textObject, ...ted("SHORT_DESCR"))),
    cpvMain: cpvMain ?? cpvAll[0] ?? null,
    cpvAll,
    contractType: tedContractType(
      mapCode(
        R209_CONTRACT_TYPES,
        sourceCodes.contract ?? null,
        "contractType",
        "the R2.0.9 TYPE_CONTRACT codes",
        errors,
      ),
      sourceCodes.legal_basis ?? null,
    ),
    procedureType: mapCode(
      R209_PROCEDURE_TYPES,
      sourceCodes.procedure ?? null,
      "procedureType",
      "the R2.0.9 PROCEDURE/PT_* elements",
      errors,
    ),
    deadline: readDeadline(procedure, buyer?.country ?? null, errors),
    estimatedValue,
    currency: estimatedValue === null ? null : parseCurrency(attr(estimated, "CURRENCY"), "currency", errors),
    nuts:
      lots.find((lot) => lot.nuts !== null)?.nuts ??
      parseNuts(attr(path(coded, [ted("NOTICE_DATA"), n2016("PERFORMANCE_NUTS")]), "CODE"), "nuts", errors),
    url: tedNoticeUrl(identity.sourceRef),
    status: tedStatus(
      eformsNotice === null ? null : (TED_FORM_TYPES[eformsNotice] ?? null),
      awardResults(form, awards, errors),
    ),
    sourceCodes,
    framework,
    durationMonths: longest(lots),
    buyer,
    awards,
    crossRef: findPlacspReference(root),
  };
  return { tender, errors };
}

const OJ_TIME_ZONE = "Europe/Luxembourg";

interface Identity {
  sourceRef: string;
  publicationDate: string | null;
  upstreamUpdated: string;
}

function readIdentity(root: XmlElement, coded: XmlElement | null, errors: FieldError[]): Identity {
  const docId = attr(root, "DOC_ID");
  const ojNumber = text(path(coded, [ted("NOTICE_DATA"), ted("NO_DOC_OJS")]));
  const sourceRef = normalizePublicationNumber(docId) ?? normalizePublicationNumber(ojNumber);
  if (sourceRef === null) {
    throw new TedNoticeError(
      "R2.0.9 notice has no publication number: " +
        `DOC_ID=${JSON.stringify(docId)} NO_DOC_OJS=${JSON.stringify(ojNumber)}`,
    );
  }
  if (docId !== null && normalizePublicationNumber(docId) === null) {
    fieldError(errors, "sourceRef", "DOC_ID is not a TED publication number", docId);
  }
  const publicationDate = parseDate(
    text(path(coded, [ted("REF_OJS"), ted("DATE_PUB")])),
    "publicationDate",
    errors,
  );
  const dispatched = parseDate(
    text(path(coded, [ted("CODIF_DATA"), ted("DS_DATE_DISPATCH")])),
    "dispatchDate",
    errors,
  );
  const day = publicationDate ?? dispatched;
  const upstreamUpdated = day === null ? null : zonedDateTimeToInstant(day, "00:00:00", OJ_TIME_ZONE);
  if (upstreamUpdated === null) {
    throw new TedNoticeError(`notice ${sourceRef} has no valid DATE_PUB or DS_DATE_DISPATCH`);
  }
  return { sourceRef, publicationDate, upstreamUpdated };
}

/**
 * The R2.0.9 originals: the form's element name, the `PROCEDURE/PT_*` element (the procedure is published as
 * which element is present), `TYPE_CONTRACT/@CTYPE` and `LEGAL_BASIS/@VALUE`.
 */
function readSourceCodes(
  form: XmlElement,
  object: XmlElement | null,
  procedure: XmlElement | null,
): SourceCodes {
  return sourceCodesOf({
    notice: form.name,
    procedure: procedure?.children.find((el) => el.ns === NS.r209 && el.name.startsWith("PT_"))?.name ?? null,
    contract: attr(child(object, ...ted("TYPE_CONTRACT")), "CTYPE"),
    legal_basis: attr(child(form, ...ted("LEGAL_BASIS")), "VALUE"),
  });
}

/**
 * One result per `AWARD_CONTRACT`: awarded (signed when `DATE_CONCLUSION_CONTRACT` is published), or not
 * awarded with the reason F03 gives (`PROCUREMENT_UNSUCCESSFUL` / `PROCUREMENT_DISCONTINUED`).
 */
function awardResults(
  form: XmlElement,
  awards: readonly { contractSigned: boolean }[],
  errors: FieldError[],
): TedResult[] {
  return children(form, ...ted("AWARD_CONTRACT")).map((award, i): TedResult => {
    if (child(award, ...ted("AWARDED_CONTRACT")) !== null) {
      return { outcome: "awarded", contractSigned: awards[i]?.contractSigned ?? false };
    }
    const reason = child(award, ...ted("NO_AWARDED_CONTRACT"))?.children.find((el) => el.ns === NS.r209);
    return {
      outcome: mapCode(
        R209_NON_AWARD_OUTCOMES,
        reason?.name ?? null,
        `awards[${i}].noAwardReason`,
        "the R2.0.9 NO_AWARDED_CONTRACT reasons",
        errors,
      ),
      contractSigned: false,
    };
  });
}

function readDeadline(
  procedure: XmlElement | null,
  country: string | null,
  errors: FieldError[],
): string | null {
  const date = text(child(procedure, ...ted("DATE_RECEIPT_TENDERS")));
  const time = text(child(procedure, ...ted("TIME_RECEIPT_TENDERS")));
  if (date === null) {
    if (time !== null) {
      fieldError(errors, "deadline", "deadline time without a date", time);
    }
    return null;
  }
  const instant = zonedDateTimeToInstant(date, time ?? END_OF_DAY, localTimeZone(country));
  if (instant === null) {
    fieldError(errors, "deadline", "not a date and time", `${date} ${time ?? ""}`.trim());
  }
  return instant;
}

function longest(lots: readonly R209Lot[]): number | null {
  const known = lots.map((lot) => lot.durationMonths).filter((months): months is number => months !== null);
  return known.length === 0 ? null : Math.max(...known);
}
