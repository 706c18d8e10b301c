import type { Company, PartyPools } from "./parties.ts";
import type { Rng } from "./random.ts";
import type { Subject } from "./vocabulary.ts";

/**
 * Award outcomes of a folder, decided when it is planned (the versions only decide when they show): per lot
 * or for the whole folder, void (desierto) for some lots, one winner per result, and for framework
 * agreements up to three winners, each in its own result carrying the framework ceiling.
 */

export interface Award {
  /** Null when the folder has no lots. */
  lotId: string | null;
  /** Desierto (ResultCode 3): no winner, no amounts. */
  void: boolean;
  winner: Company | null;
  /** Ex-VAT; for a framework agreement the ceiling. */
  value: number;
  bidders: number;
  smeBidders: number;
  lower: number;
  higher: number;
  contractId: string;
}

/** Amounts are published to the cent. */
export function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface AwardInput {
  /** Lot ids and budgets; empty when the folder has no lots. */
  lots: readonly { id: string; budget: number }[];
  budget: number;
  subject: Subject;
  framework: boolean;
  procedure: string;
  allVoid: boolean;
  year: number;
}

export function planAwards(rng: Rng, parties: PartyPools, input: AwardInput): Award[] {
  const targets: { lotId: string | null; budget: number }[] =
    input.lots.length > 0
      ? input.lots.map((lot) => ({ lotId: lot.id, budget: lot.budget }))
      : [{ lotId: null, budget: input.budget }];
  const awards: Award[] = [];
  for (const target of targets) {
    const isVoid = input.allVoid || (input.lots.length > 0 && rng.chance(0.08));
    const bidders = isVoid
      ? rng.int(0, 2)
      : input.procedure === "3"
        ? rng.weighted([
            [1, 70],
            [2, 20],
            [3, 10],
          ])
        : Math.min(1 + Math.floor(rng.exponential(3)), 25);
    const smeBidders = Math.round(bidders * (0.5 + rng.next() * 0.5));
    // A framework agreement's award is its ceiling, often shared by several winners (one result each).
    const winners = isVoid ? 0 : input.framework ? Math.min(bidders, rng.int(1, 3)) : 1;
    const discount =
      bidders <= 1 ? 0.93 + rng.next() * 0.07 : Math.max(0.55, 0.97 - rng.next() * 0.06 * bidders);
    const bid = roundCents(target.budget * discount);
    const higher = roundCents(Math.min(target.budget, bid * (1 + rng.next() * 0.25)));
    const contractId = `${rng.int(100, 99_999)}/${input.year}`;
    if (winners === 0) {
      awards.push({
        lotId: target.lotId,
        void: true,
        winner: null,
        value: 0,
        bidders,
        smeBidders,
        lower: 0,
        higher: 0,
        contractId,
      });
      continue;
    }
    const seen = new Set<Company>();
    for (let w = 0; w < winners; w++) {
      const winner = parties.pickWinner(rng, input.subject.sector, target.budget);
      if (seen.has(winner)) {
        continue;
      }
      seen.add(winner);
      awards.push({
        lotId: target.lotId,
        void: false,
        winner,
        value: input.framework ? target.budget : bid,
        bidders: Math.max(bidders, winners),
        smeBidders,
        lower: bid,
        higher: Math.max(higher, bid),
        contractId: w === 0 ? contractId : `${rng.int(100, 99_999)}/${input.year}`,
      });
    }
  }
  return awards;
}
