import { describe, expect, it } from "vitest";
import {
  CONTRACT_TYPES,
  effectiveStatus,
  NOTICE_TYPES,
  PROCEDURE_TYPES,
  TENDER_STATUSES,
} from "../../domain/vocabulary.ts";
import {
  CONTRACT_FOLDER_STATUS_CODES,
  CONTRACT_TYPE_CODES,
  NOTICE_TYPE_CODES,
  PROCEDURE_CODES,
  TENDER_RESULT_CODES,
} from "../placsp/codes.ts";
import {
  CONTRACT_NATURE_CODES,
  FORM_TYPE_CODES,
  NON_AWARD_JUSTIFICATION_CODES,
  PROCEDURE_TYPE_CODES,
  R209_CONTRACT_CODES,
  R209_FORM_CODES,
  R209_NON_AWARD_CODES,
  R209_PROCEDURE_CODES,
  NOTICE_TYPE_CODES as TED_NOTICE_TYPE_CODES,
  WINNER_SELECTION_STATUS_CODES,
} from "../ted/codes.ts";
import { mapCode } from "./map-code.ts";
import {
  outcomeStatus,
  PLACSP_CONTRACT_TYPES,
  PLACSP_FOLDER_STATUSES,
  PLACSP_NOTICE_TYPES,
  PLACSP_PROCEDURE_TYPES,
  PLACSP_RESULT_OUTCOMES,
} from "./placsp.ts";
import {
  R209_CONTRACT_TYPES,
  R209_FORM_NOTICE_TYPES,
  R209_NON_AWARD_OUTCOMES,
  R209_PROCEDURE_TYPES,
  TED_CONTRACT_TYPES,
  TED_FORM_TYPES,
  TED_NON_AWARD_OUTCOMES,
  TED_NOTICE_TYPES,
  TED_PROCEDURE_TYPES,
  TED_RESULT_OUTCOMES,
  tedContractType,
  tedStatus,
} from "./ted.ts";

const keys = (record: Readonly<Record<string, unknown>>): string[] => Object.keys(record).sort();

/**
 * Each mapping covers exactly the codes of its cited list (placsp/codes.ts, ted/codes.ts): a code the list
 * defines is never left out (it would read as unknown), and no code is invented.
 */
describe("every source code list is mapped, code for code", () => {
  it.each([
    ["PLACSP NoticeTypeCode", PLACSP_NOTICE_TYPES, NOTICE_TYPE_CODES],
    ["PLACSP ProcedureCode", PLACSP_PROCEDURE_TYPES, PROCEDURE_CODES],
    ["PLACSP ContractCode", PLACSP_CONTRACT_TYPES, CONTRACT_TYPE_CODES],
    ["PLACSP ContractFolderStatusCode", PLACSP_FOLDER_STATUSES, CONTRACT_FOLDER_STATUS_CODES],
    ["PLACSP TenderResultCode", PLACSP_RESULT_OUTCOMES, TENDER_RESULT_CODES],
    ["eForms notice-type → form-type", TED_FORM_TYPES, TED_NOTICE_TYPE_CODES],
    ["eForms notice-type", TED_NOTICE_TYPES, TED_NOTICE_TYPE_CODES],
    ["eForms procurement-procedure-type", TED_PROCEDURE_TYPES, PROCEDURE_TYPE_CODES],
    ["eForms contract-nature", TED_CONTRACT_TYPES, CONTRACT_NATURE_CODES],
    ["eForms winner-selection-status", TED_RESULT_OUTCOMES, WINNER_SELECTION_STATUS_CODES],
    ["eForms non-award-justification", TED_NON_AWARD_OUTCOMES, NON_AWARD_JUSTIFICATION_CODES],
    ["R2.0.9 forms", R209_FORM_NOTICE_TYPES, R209_FORM_CODES],
    ["R2.0.9 CTYPE", R209_CONTRACT_TYPES, R209_CONTRACT_CODES],
    ["R2.0.9 NO_AWARDED_CONTRACT", R209_NON_AWARD_OUTCOMES, R209_NON_AWARD_CODES],
  ])("%s", (_list, map, list) => {
    expect(keys(map)).toEqual(keys(list));
  });

  it("R2.0.9 PT_* elements: all but PT_INVOLVING_NEGOTIATION, which OP maps to no eForms code", () => {
    expect(keys(R209_PROCEDURE_TYPES)).toEqual(
      keys(R209_PROCEDURE_CODES).filter((code) => code !== "PT_INVOLVING_NEGOTIATION"),
    );
  });

  it("form types and R2.0.9 forms point into their target lists", () => {
    expect([...new Set(Object.values(TED_FORM_TYPES))].sort()).toEqual(keys(FORM_TYPE_CODES));
    for (const notice of Object.values(R209_FORM_NOTICE_TYPES)) {
      expect(Object.hasOwn(TED_NOTICE_TYPE_CODES, notice)).toBe(true);
    }
  });
});

describe("the common vocabulary", () => {
  const values = (...maps: Readonly<Record<string, string | null>>[]): Set<string | null> =>
    new Set(maps.flatMap((map) => Object.values(map)));

  it.each([
    ["notice_type", NOTICE_TYPES, values(PLACSP_NOTICE_TYPES, TED_NOTICE_TYPES)],
    [
      "procedure_type",
      PROCEDURE_TYPES,
      values(PLACSP_PROCEDURE_TYPES, TED_PROCEDURE_TYPES, R209_PROCEDURE_TYPES),
    ],
    // concession: PLACSP's concession codes, and TED's legal basis (tedContractType)
    ["contract_type", CONTRACT_TYPES, values(PLACSP_CONTRACT_TYPES, TED_CONTRACT_TYPES, R209_CONTRACT_TYPES)],
  ])(
    "%s: every value comes from some source code, and every mapped code lands in it",
    (_f, vocab, mapped) => {
      const known = [...mapped].filter((v): v is string => v !== null);
      expect(known.every((v) => (vocab as readonly string[]).includes(v))).toBe(true);
      expect([...vocab].sort()).toEqual([...new Set(known)].sort());
    },
  );

  it("prefers the eForms codes: every eForms procedure type is its own common value", () => {
    for (const code of Object.keys(PROCEDURE_TYPE_CODES)) {
      expect(TED_PROCEDURE_TYPES[code]).toBe(code);
    }
    for (const code of Object.keys(CONTRACT_NATURE_CODES)) {
      expect(TED_CONTRACT_TYPES[code]).toBe(code);
    }
  });

  it("maps the Spanish procedures eForms lacks to the Spanish additions", () => {
    expect(PLACSP_PROCEDURE_TYPES["9"]).toBe("simplified-open"); // Abierto simplificado
    expect(PLACSP_PROCEDURE_TYPES["6"]).toBe("minor-contract"); // Contrato menor
    expect(PLACSP_PROCEDURE_TYPES["13"]).toBe("neg-w-call"); // Licitación con negociación
  });

  it("every status is reachable", () => {
    const folder = Object.values(PLACSP_FOLDER_STATUSES);
    const outcomes: (typeof TENDER_STATUSES)[number][] = [
      outcomeStatus([{ outcome: "signed", contractSigned: false }]),
      outcomeStatus([{ outcome: "awarded", contractSigned: false }]),
      outcomeStatus([{ outcome: "evaluation", contractSigned: false }]),
      outcomeStatus([{ outcome: "deserted", contractSigned: false }]),
      outcomeStatus([{ outcome: "withdrawn", contractSigned: false }]),
    ].filter((s) => s !== null);
    expect(new Set([...folder.filter((s) => s !== "resolved"), ...outcomes])).toEqual(
      new Set(TENDER_STATUSES),
    );
  });
});

describe("mapCode", () => {
  it("maps a known code, leaves an absent one null, and reports an unknown one (never guessing)", () => {
    const errors: { field: string; reason: string }[] = [];
    expect(mapCode(PLACSP_NOTICE_TYPES, "DOC_FORM", "noticeType", "the list", errors)).toBe(
      "contract-signed",
    );
    expect(mapCode(PLACSP_NOTICE_TYPES, null, "noticeType", "the list", errors)).toBeNull();
    expect(errors).toEqual([]);
    // shaped like a cancellation, but not a code of the list
    expect(mapCode(PLACSP_NOTICE_TYPES, "ANUL_DOC_CN", "noticeType", "the list", errors)).toBeNull();
    // an own property of every object is not a code either
    expect(mapCode(PLACSP_NOTICE_TYPES, "constructor", "noticeType", "the list", errors)).toBeNull();
    expect(errors).toEqual([
      { field: "noticeType", reason: 'not a code of the list: "ANUL_DOC_CN"' },
      { field: "noticeType", reason: 'not a code of the list: "constructor"' },
    ]);
  });

  it("maps a known code without a common value to null, without an error", () => {
    const errors: { field: string; reason: string }[] = [];
    expect(mapCode(TED_NOTICE_TYPES, "brin-ecs", "noticeType", "the list", errors)).toBeNull();
    expect(mapCode(TED_NON_AWARD_OUTCOMES, "other", "reason", "the list", errors)).toBeNull();
    expect(errors).toEqual([]);
  });
});

describe("derived values", () => {
  it("a notice under the concessions directive is a concession, whatever its nature", () => {
    expect(tedContractType("services", "32014L0023")).toBe("concession");
    expect(tedContractType("works", "32014L0023")).toBe("concession");
    expect(tedContractType("services", "32014L0024")).toBe("services");
    expect(tedContractType(null, null)).toBeNull();
  });

  it("TED status follows the form type", () => {
    const signedLot = [{ outcome: "awarded" as const, contractSigned: true }];
    expect(tedStatus("planning", [])).toBe("planned");
    expect(tedStatus("consultation", [])).toBe("planned");
    expect(tedStatus("competition", [])).toBe("open");
    expect(tedStatus("result", signedLot)).toBe("signed");
    expect(tedStatus("dir-awa-pre", [{ outcome: "awarded", contractSigned: false }])).toBe("awarded");
    expect(tedStatus("result", [])).toBeNull();
    expect(tedStatus("cont-modif", [])).toBe("signed");
    expect(tedStatus("completion", [])).toBe("signed");
    expect(tedStatus("bri", [])).toBeNull();
    expect(tedStatus(null, signedLot)).toBeNull();
  });

  it("outcomes: signed over awarded over evaluation; all void: cancelled if any withdrawal, else deserted", () => {
    const r = (outcome: Parameters<typeof outcomeStatus>[0][number]["outcome"], contractSigned = false) => ({
      outcome,
      contractSigned,
    });
    expect(outcomeStatus([r("deserted"), r("awarded", true)])).toBe("signed");
    expect(outcomeStatus([r("deserted"), r("awarded")])).toBe("awarded");
    expect(outcomeStatus([r("deserted"), r("evaluation")])).toBe("evaluation");
    expect(outcomeStatus([r("deserted"), r("deserted")])).toBe("deserted");
    expect(outcomeStatus([r("deserted"), r("withdrawn")])).toBe("cancelled");
    // an unknown outcome beside void ones: how it ended is not known
    expect(outcomeStatus([r("deserted"), r(null)])).toBeNull();
    expect(outcomeStatus([r(null), r("awarded")])).toBe("awarded");
    expect(outcomeStatus([])).toBeNull();
  });

  it("open with a past deadline reads evaluation; nothing else changes", () => {
    const now = new Date("2026-01-10T12:00:00Z");
    expect(effectiveStatus("open", new Date("2026-01-10T11:59:59Z"), now)).toBe("evaluation");
    expect(effectiveStatus("open", new Date("2026-01-10T12:00:00Z"), now)).toBe("open");
    expect(effectiveStatus("open", null, now)).toBe("open");
    expect(effectiveStatus("awarded", new Date("2020-01-01T00:00:00Z"), now)).toBe("awarded");
    expect(effectiveStatus(null, new Date("2020-01-01T00:00:00Z"), now)).toBeNull();
  });
});
