import { describe, expect, it } from "vitest";
import {
  CONTRACT_TYPES,
  NOTICE_TYPES,
  PROCEDURE_TYPES,
  START_DATE_KINDS,
  TENDER_STATUSES,
} from "../../src/domain/vocabulary.ts";
import { buildTestApp, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";

const t = useTestDb();

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  $ref?: string;
};

/** The values a (possibly nullable) enum property allows, whichever way the generator writes null. */
function enumOf(schema: Schema | undefined): unknown[] {
  if (!schema) {
    return [];
  }
  const variants = schema.anyOf ?? [schema];
  return variants.flatMap((variant) => variant.enum ?? []).filter((value) => value !== null);
}

describe("OpenAPI enumerates the common vocabulary", () => {
  it("on the Tender, its awards, research findings and renewal bases", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { body } = await getJson(app, "/openapi.json");
    const schemas = (body as { components: { schemas: Record<string, Schema> } }).components.schemas;
    const tender = schemas.Tender?.properties ?? {};
    expect(enumOf(tender.notice_type)).toEqual([...NOTICE_TYPES]);
    expect(enumOf(tender.procedure_type)).toEqual([...PROCEDURE_TYPES]);
    expect(enumOf(tender.contract_type)).toEqual([...CONTRACT_TYPES]);
    expect(enumOf(tender.status)).toEqual([...TENDER_STATUSES]);
    expect(tender.source_codes?.$ref).toBe("#/components/schemas/SourceCodes");
    expect(Object.keys(schemas.SourceCodes?.properties ?? {})).toEqual([
      "notice",
      "procedure",
      "contract",
      "status",
      "legal_basis",
    ]);
    expect(enumOf(schemas.Award?.properties?.start_date_kind)).toEqual([...START_DATE_KINDS]);

    // The research brief's tender findings and the renewal expiry basis carry the same enums.
    const finding =
      schemas.ResearchBrief?.properties?.findings?.properties?.recent_tenders?.items?.properties ?? {};
    expect(enumOf(finding.procedure_type)).toEqual([...PROCEDURE_TYPES]);
    expect(enumOf(finding.contract_type)).toEqual([...CONTRACT_TYPES]);
    expect(enumOf(finding.status)).toEqual([...TENDER_STATUSES]);
    expect(enumOf(schemas.ExpiryBasis?.properties?.start_date_kind)).toEqual([...START_DATE_KINDS]);
    // No source code is an enum value anywhere: the vocabulary is ours (source codes are examples only).
    const enumValues = new Set<unknown>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) {
        node.forEach(walk);
      } else if (node !== null && typeof node === "object") {
        for (const [key, value] of Object.entries(node)) {
          if (key === "enum" && Array.isArray(value)) {
            for (const v of value) {
              enumValues.add(v);
            }
          }
          walk(value);
        }
      }
    };
    walk(body);
    expect(enumValues.has("signed")).toBe(true);
    for (const code of ["DOC_CN", "DOC_FORM", "cn-standard", "can-standard", "PT_OPEN", "RES", "ADJ", "1"]) {
      expect(enumValues.has(code), code).toBe(false);
    }
  });
});

describe("llms.txt", () => {
  it("says the coded fields share one vocabulary and where the published codes are", async () => {
    const { app } = buildTestApp({ db: t.db });
    const text = await (await app.request("/llms.txt")).text();
    const line = text.split("\n").find((l) => l.startsWith("- One vocabulary for both sources"));
    expect(line).toBeDefined();
    for (const word of [
      "notice_type",
      "procedure_type",
      "contract_type",
      "source_codes",
      "start_date_kind",
    ]) {
      expect(line).toContain(word);
    }
    // the Spanish additions and every status, from the vocabulary itself
    expect(line).toContain(
      "simplified-open, minor-contract, call-off, design-contest, internal-rules, other",
    );
    expect(line).toContain(TENDER_STATUSES.join(", "));
  });
});
