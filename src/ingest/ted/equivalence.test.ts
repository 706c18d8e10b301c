import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import type { NormalizedTender } from "../model.ts";
import { normalizeTedNotice, readTedNotice } from "./detect.ts";

/**
 * The Spanish F03 153579-2020 in its original R2.0.9 form and as converted to eForms by OP's TED-XML →
 * eForms converter must normalize to the same tender and awards. The fields that legitimately differ are
 * listed, with why, and compared separately; everything else must be deeply equal.
 *
 * - `upstreamUpdated`: both are 2020-03-31 at 00:00, but the converter wrote the publication date as
 *   `2020-03-31+01:00` (CET) while Luxembourg was already on CEST (+02:00), one hour apart.
 * - `nuts`, `buyer.nuts`: the converter dropped every NUTS code (R2.0.9 `n2016:NUTS CODE="ES51"` on the
 *   buyer and on each lot; the eForms lots keep only a street name "Cataluña").
 * - `awards[].lot`: R2.0.9 publishes `LOT_NO` 1, 2, 3; eForms has technical lot ids LOT-0001…LOT-0003.
 * - `sourceCodes`: each keeps its own format's codes (R2.0.9 `F03_2014`, `PT_OPEN`, `SERVICES`; eForms
 *   `can-standard`, `open`, `services`). The common fields they map to are compared with everything else.
 */

const FIXTURES = `${SHARED_DIR}fixtures/ted/`;

async function normalizeFile(file: string): Promise<{ tender: NormalizedTender; errors: unknown[] }> {
  return normalizeTedNotice(await readTedNotice(createReadStream(`${FIXTURES}${file}`)));
}

/** The tender without the fields listed above. */
function comparable(tender: NormalizedTender): unknown {
  const { upstreamUpdated: _updated, nuts: _nuts, sourceCodes: _codes, buyer, awards, ...rest } = tender;
  return {
    ...rest,
    buyer: buyer === null ? null : { ...buyer, nuts: "(differs)" },
    awards: awards.map(({ lot: _lot, ...award }) => award),
  };
}

describe("R2.0.9 F03 153579-2020 and its eForms conversion", async () => {
  const original = await normalizeFile("ted-r209-f03-153579-2020-ESP-framework.xml");
  const converted = await normalizeFile("converted-eforms-from-r209-153579-2020-ESP.xml");

  it("read without errors", () => {
    expect(original.errors).toEqual([]);
    expect(converted.errors).toEqual([]);
  });

  it("normalize to the same tender and awards, apart from the documented differences", () => {
    expect(comparable(converted.tender)).toEqual(comparable(original.tender));
  });

  it("share the key and the URL", () => {
    // R2.0.9 @DOC_ID 153579-2020; eForms NoticePublicationID 153579-2020 (unpadded in the converter output)
    expect(original.tender.sourceRef).toBe("153579-2020");
    expect(converted.tender.sourceRef).toBe("153579-2020");
    expect(converted.tender.url).toBe(original.tender.url);
  });

  it("differ only where documented", () => {
    // R2.0.9 DATE_PUB 20200331 at 00:00 CEST; eForms PublicationDate 2020-03-31+01:00
    expect(original.tender.upstreamUpdated).toBe("2020-03-30T22:00:00.000Z");
    expect(converted.tender.upstreamUpdated).toBe("2020-03-30T23:00:00.000Z");
    // R2.0.9 OBJECT_DESCR/n2016:NUTS and ADDRESS_CONTRACTING_BODY/n2016:NUTS ES51; eForms: none
    expect([original.tender.nuts, original.tender.buyer?.nuts]).toEqual(["ES51", "ES51"]);
    expect([converted.tender.nuts, converted.tender.buyer?.nuts]).toEqual([null, null]);
    expect(original.tender.awards.map((a) => a.lot)).toEqual(["1", "2", "3"]);
    expect(converted.tender.awards.map((a) => a.lot)).toEqual(["LOT-0001", "LOT-0002", "LOT-0003"]);
    expect(original.tender.sourceCodes).toEqual({
      notice: "F03_2014",
      procedure: "PT_OPEN",
      contract: "SERVICES",
      legal_basis: "32014L0024",
    });
    expect(converted.tender.sourceCodes).toEqual({
      notice: "can-standard",
      procedure: "open",
      contract: "services",
      legal_basis: "32014L0024",
    });
  });

  it("compares non-trivial parts (a guard against two empty results comparing equal)", () => {
    expect(converted.tender.awards).toHaveLength(3);
    expect(converted.tender.awards[0]?.winner?.members).toHaveLength(6);
    expect(converted.tender.awards[0]?.value).toBe(7834899.64);
    expect(converted.tender.title).not.toBeNull();
    expect([converted.tender.noticeType, converted.tender.procedureType, converted.tender.status]).toEqual([
      "award-notice",
      "open",
      "signed",
    ]);
  });
});
