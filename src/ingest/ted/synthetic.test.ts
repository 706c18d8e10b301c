import { describe, expect, it } from "vitest";
import { normalizeTedNotice, readTedNotice } from "./detect.ts";
import { isSyntheticPublicationNumber } from "./publication-number.ts";
import { syntheticTedNotices } from "./synthetic.ts";

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

describe("syntheticTedNotices", () => {
  it("writes valid eForms notices that normalize without a single field error", async () => {
    const kinds = new Map<string, number>();
    let awards = 0;
    let consortia = 0;
    let voids = 0;
    for (const notice of syntheticTedNotices({ notices: 400 })) {
      const { tender, errors } = normalizeTedNotice(await readTedNotice(once(notice.xml)));
      expect(errors, notice.name).toEqual([]);
      expect(tender.sourceRef).toBe(notice.publicationNumber);
      expect(isSyntheticPublicationNumber(tender.sourceRef)).toBe(true);
      expect(tender.buyer?.nif).toMatch(/^[A-Z]\d{7}[0-9A-J]$/);
      const kind = tender.sourceCodes.notice ?? "";
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      expect(tender.noticeType).toBe(kind === "can-standard" ? "award-notice" : "contract-notice");
      awards += tender.awards.length;
      consortia += tender.awards.filter((a) => (a.winner?.members.length ?? 0) > 1).length;
      voids += tender.awards.filter((a) => a.winner === null).length;
      for (const award of tender.awards.filter((a) => a.winner !== null)) {
        expect(award.winner?.nif ?? award.winner?.members[0]?.nif).toMatch(/^[A-Z]\d{7}[0-9A-J]$/);
        expect(award.value).toBeGreaterThan(0);
      }
    }
    expect(kinds.get("can-standard")).toBeGreaterThan(200);
    expect(kinds.get("cn-standard")).toBeGreaterThan(60);
    expect(awards).toBeGreaterThan(400);
    expect(consortia).toBeGreaterThan(0);
    expect(voids).toBeGreaterThan(0);
  });

  it("is deterministic: the same seed gives the same bytes, another seed other notices", () => {
    const first = [...syntheticTedNotices({ notices: 20 })];
    expect([...syntheticTedNotices({ notices: 20 })]).toEqual(first);
    expect([...syntheticTedNotices({ notices: 20, seed: 7 })].map((n) => n.xml)).not.toEqual(
      first.map((n) => n.xml),
    );
    expect(first[0]).toMatchObject({ name: "20240102_001/00000001_0000.xml", publicationNumber: "1-0000" });
  });
});
