import { beforeAll, describe, expect, it } from "vitest";
import { type BuyerEvidence, cpvDivision, tenderDivisions } from "../../src/analytics/renewals/rules.ts";
import { loadBuyerEvidence } from "../../src/db/queries/renewals.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import { insertContract } from "../helpers/renewal-history.ts";

/*
 * The evidence of buyer x division pairs (an incremental recompute) is read by its own statement
 * (loadPairEvidence: per buyer, tenders with their awards left-joined, divisions tested on cpv_prefixes), the
 * evidence of whole buyers (a full recompute, the backtest) by two others. A division's signals must read the
 * same rows either way, or the incremental step would not leave the table a full recompute leaves.
 */

const t = useTestDb();

describe("tender divisions", () => {
  it("are the SQL cpv_divisions with which the triggers mark pairs", async () => {
    const cases: (string | null)[][] = [
      [],
      ["72000000"],
      ["72000000", "72100000", "48000000", "30200000-1"],
      ["7", "72", "7a000000", "ab000000", "", " 72000000", "٧٢000000", "48"],
      ["72000000", null, "50000000"],
      ["99999999", "00000000", "09300000"],
    ];
    for (const cpvAll of cases) {
      const { rows } = await t.db.query<{ divisions: string[] }>(
        "SELECT cpv_divisions($1::text[]) AS divisions",
        [cpvAll],
      );
      expect(tenderDivisions(cpvAll), JSON.stringify(cpvAll)).toEqual(rows[0]?.divisions);
    }
  });
});

describe("evidence of buyer x division pairs", () => {
  let buyer = 0;
  let other = 0;

  beforeAll(async () => {
    buyer = await insertBuyer(t.db, "Ayuntamiento de Evidencia");
    other = await insertBuyer(t.db, "Otro comprador");
    const winner = await insertCompany(t.db, "Ganadora SL");
    const tender = (sourceRef: string, cpvAll: string[], publicationDate: string | null = "2024-01-10") =>
      insertTender(t.db, { sourceRef, buyerId: buyer, cpvAll, publicationDate });
    const award = (tenderId: number, lot: string, cpv: string | null, winnerId: number | null = winner) =>
      insertContract(t.db, { tenderId, lot, winnerId, cpv, awardDate: "2024-03-01", durationMonths: 12 });

    // Listed in 72 and 48, published, searchable: a possible re-tender of both; two awards in 72, one in 48.
    const both = await tender("E-both", ["72000000", "48000000"]);
    await award(both, "1", "72200000");
    await award(both, "2", "72300000");
    await award(both, "3", "48100000");
    // Awards in 72 of a tender that lists 30 only (the lot's own CPV), and one falling back to the main CPV (30).
    const lots = await tender("E-lots", ["30200000"]);
    await award(lots, "1", "72500000");
    await award(lots, "2", null);
    // Not published: its awards count, the tender is no re-tender.
    const unpublished = await tender("E-unpublished", ["72000000"], null);
    await award(unpublished, "1", "72100000");
    // Main CPV in 72 but cpv_all in 79 only: the award falls back to the main CPV, the tender lists 79.
    const mainOnly = await tender("E-main", ["79000000"]);
    await t.db.query("UPDATE tenders SET cpv_main = '72000000' WHERE id = $1", [mainOnly]);
    await award(mainOnly, "1", null);
    // Codes that are no division: a short code and a malformed one.
    const odd = await tender("E-odd", ["7", "7a000000", "72"]);
    await award(odd, "1", "7210"); // not eight digits: no division
    // Awards that are no evidence: a void result, a superseded one.
    const voided = await tender("E-void", ["72000000"]);
    await award(voided, "1", "72000000", null);
    const superseded = await award(voided, "2", "72000000");
    await t.db.query("UPDATE awards SET superseded = true WHERE id = $1", [superseded]);
    // Hidden tenders: linked to another source's record, annulled; a closed one stays.
    const linked = await tender("E-linked", ["72000000"]);
    await award(linked, "1", "72000000");
    await t.db.query("UPDATE tenders SET linked_to = $2 WHERE id = $1", [linked, both]);
    const annulled = await tender("E-annulled", ["72000000"]);
    await award(annulled, "1", "72000000");
    await t.db.query("UPDATE tenders SET deleted_at = now(), deletion_reason = 'ANULADA' WHERE id = $1", [
      annulled,
    ]);
    const closed = await tender("E-closed", ["72000000", "50000000"]);
    await award(closed, "1", "50300000");
    await t.db.query("UPDATE tenders SET deleted_at = now(), deletion_reason = 'CERRADA' WHERE id = $1", [
      closed,
    ]);
    // Another buyer's tender in 72: never part of this buyer's evidence.
    const foreign = await insertTender(t.db, {
      sourceRef: "E-foreign",
      buyerId: other,
      cpvAll: ["72000000"],
    });
    await award(foreign, "1", "72000000");
  });

  /** The whole buyers' evidence cut down to the pairs' divisions: what the pair evidence must be. */
  const restricted = (whole: BuyerEvidence[], divisions: Record<number, string[]>): BuyerEvidence[] =>
    whole.map((b) => {
      const listed = new Set(divisions[b.buyerId] ?? []);
      return {
        buyerId: b.buyerId,
        awards: b.awards.filter((a) => listed.has(cpvDivision(a.cpv) ?? "")),
        tenders: b.tenders.filter((t) => t.divisions.some((d) => listed.has(d))),
      };
    });

  it("reads exactly the whole buyer's evidence in those divisions", async () => {
    const scopes: Record<number, string[]>[] = [
      { [buyer]: ["72"] },
      { [buyer]: ["48", "72"] },
      { [buyer]: ["30", "50", "79"] },
      { [buyer]: ["64"] },
      { [buyer]: ["72"], [other]: ["72"] },
      { [buyer]: ["48"], [other]: ["30"] },
    ];
    for (const divisions of scopes) {
      const buyers = Object.keys(divisions)
        .map(Number)
        .sort((a, b) => a - b);
      const pairs = buyers.map((buyerId) => ({ buyerId, divisions: divisions[buyerId] ?? [] }));
      const expected = restricted(await loadBuyerEvidence(t.db, buyers), divisions);
      expect(await loadBuyerEvidence(t.db, pairs), JSON.stringify(divisions)).toEqual(expected);
    }
  });

  it("reads what the rules use: each award once, each listed tender once, hidden tenders never", async () => {
    const [evidence] = await loadBuyerEvidence(t.db, [{ buyerId: buyer, divisions: ["72"] }]);
    const awardRefs = (evidence?.awards ?? []).map((a) => `${a.tenderRef}:${a.cpv}`);
    expect(awardRefs.sort()).toEqual(
      [
        "E-both:72200000",
        "E-both:72300000",
        "E-lots:72500000",
        "E-unpublished:72100000",
        "E-main:72000000",
      ].sort(),
    );
    // Published, searchable (a closed folder stays), listing 72: the void result's tender is one too.
    expect((evidence?.tenders ?? []).map((t) => t.ref)).toEqual(["E-both", "E-odd", "E-void", "E-closed"]);
    expect(evidence?.tenders[0]?.divisions).toEqual(["48", "72"]);
    // A division that is not two digits names no award and no tender (cpv_prefixes holds longer prefixes).
    const [odd] = await loadBuyerEvidence(t.db, [{ buyerId: buyer, divisions: ["7", "720", "7200"] }]);
    expect(odd).toEqual({ buyerId: buyer, awards: [], tenders: [] });
  });
});
