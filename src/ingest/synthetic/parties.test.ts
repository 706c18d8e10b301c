import { describe, expect, it } from "vitest";
import { validNif } from "../../lib/nif.ts";
import { isJointVenture } from "../../lib/party-names.ts";
import { buildParties, cif, cifControlDigit } from "./parties.ts";
import { Rng } from "./random.ts";

describe("CIF control", () => {
  it("reproduces the control of real published CIFs", () => {
    // Buyer and winner ids from the PLACSP fixtures.
    expect(cif("P", "1101200", "letter")).toBe("P1101200B");
    expect(cif("Q", "8550002", "letter")).toBe("Q8550002C");
    expect(cif("A", "3821010", "digit")).toBe("A38210100");
    expect(cif("B", "6070723", "digit")).toBe("B60707239");
    expect(cifControlDigit("8481855")).toBe(8);
  });
});

describe("buildParties", () => {
  const parties = buildParties(643);

  it("has a few hundred buyers and a few thousand companies, every NIF valid and unique", () => {
    expect(parties.buyers.length).toBeGreaterThanOrEqual(200);
    expect(parties.buyers.length).toBeLessThan(1000);
    expect(parties.companies.length).toBeGreaterThanOrEqual(3000);
    const nifs = [...parties.buyers, ...parties.companies].map((p) => p.nif);
    expect(new Set(nifs).size).toBe(nifs.length);
    for (const nif of nifs) {
      expect(validNif(nif), nif).toBe(nif);
    }
  });

  it("gives public bodies P/Q/S letter-control CIFs and companies A/B digit-control ones", () => {
    for (const buyer of parties.buyers) {
      expect(buyer.nif).toMatch(/^[PQS]\d{7}[A-J]$/);
      for (const dir3 of buyer.dir3) {
        expect(dir3).toMatch(/^[A-Z][A-Z0-9]{8}$/);
      }
    }
    for (const company of parties.companies.filter((c) => !c.ute)) {
      expect(company.nif).toMatch(/^[AB]\d{8}$/);
      expect(isJointVenture(company.name, company.nif), company.name).toBe(false);
    }
  });

  it("includes UTEs with U CIFs that the project recognizes as joint ventures by name and by NIF", () => {
    const utes = parties.companies.filter((c) => c.ute);
    expect(utes.length).toBeGreaterThan(50);
    for (const ute of utes) {
      expect(ute.nif).toMatch(/^U\d{7}[0-9A-J]$/);
      expect(ute.name).toMatch(/(?:UTE|U\.T\.E\.)$/);
      expect(isJointVenture(ute.name, null), ute.name).toBe(true);
      expect(isJointVenture("any name", ute.nif)).toBe(true);
    }
  });

  it("concentrates purchases and wins on a few parties", () => {
    const rng = new Rng(1);
    const buyers = new Map<string, number>();
    const winners = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const buyer = parties.pickBuyer(rng).nif;
      buyers.set(buyer, (buyers.get(buyer) ?? 0) + 1);
      const winner = parties.pickWinner(rng, "software", 100_000).nif;
      winners.set(winner, (winners.get(winner) ?? 0) + 1);
    }
    const topShare = (counts: Map<string, number>, n: number): number =>
      [...counts.values()]
        .sort((a, b) => b - a)
        .slice(0, n)
        .reduce((a, b) => a + b, 0) / 20_000;
    // The top 5% of buyers and winners get several times their proportional share.
    expect(topShare(buyers, Math.ceil(parties.buyers.length / 20))).toBeGreaterThan(0.15);
    expect(topShare(winners, Math.ceil(winners.size / 20))).toBeGreaterThan(0.2);
  });

  it("is deterministic for a seed", () => {
    const again = buildParties(643);
    expect(again.buyers.map((b) => [b.name, b.nif])).toEqual(parties.buyers.map((b) => [b.name, b.nif]));
    expect(again.companies.map((c) => c.nif)).toEqual(parties.companies.map((c) => c.nif));
    expect(buildParties(644).companies.map((c) => c.nif)).not.toEqual(parties.companies.map((c) => c.nif));
  });
});
