import type { Queryable } from "../db/client.ts";
import {
  addBuyerAliases,
  addBuyerIdentifierRows,
  addCompanyAliases,
  addCompanyIdentifiers,
  type BuyerDetails,
  type BuyerIdentifier,
  completeBuyers,
  ensureCompaniesByName,
  ensureCompaniesByNif,
  findBuyerIdentifiers,
  insertBuyer,
  linkCompanyMembers,
  markJointVentures,
  type NewCompany,
} from "../db/queries/parties.ts";
import { cleanPartyName, normalizePartyName } from "../lib/party-names.ts";
import type { NormalizedBuyer, NormalizedParty, NormalizedWinner } from "./model.ts";

/**
 * Entity resolution at ingestion (docs/entity-resolution.md):
 * - a party with a valid Spanish tax id is the one company/buyer with that normalized NIF, across sources;
 * - a party without one is matched on its exact normalized name, and only among parties that have no NIF
 *   either, so the outcome does not depend on the order notices arrive in and a name never merges two
 *   companies that have different tax ids;
 * - joint ventures (UTE) are companies of their own, linked to their members, never merged into them;
 * - every raw name seen is kept as an alias.
 */

/** The identity a company is matched on. */
export function companyKey(party: NormalizedParty): string {
  return party.nif ? `nif:${party.nif}` : `name:${normalizePartyName(party.name)}`;
}

/** Resolves (creating where needed) every winner and joint-venture member; returns a lookup by `companyKey`. */
export async function resolveCompanies(
  db: Queryable,
  winners: readonly NormalizedWinner[],
): Promise<Map<string, number>> {
  const parties: NormalizedParty[] = [];
  for (const winner of winners) {
    parties.push(winner, ...winner.members);
  }
  const byNif = new Map<string, NewCompany>();
  const byName = new Map<string, NewCompany>();
  for (const party of parties) {
    const name = cleanPartyName(party.name);
    const nameNorm = normalizePartyName(party.name);
    const row: NewCompany = {
      name,
      name_norm: nameNorm,
      nif: party.nif,
      country: party.country,
      is_joint_venture: "isJointVenture" in party && party.isJointVenture === true,
    };
    const target = party.nif ? byNif : byName;
    const key = party.nif ?? nameNorm;
    // First name seen wins for a new company; later spellings become aliases.
    if (!target.has(key)) {
      target.set(key, row);
    }
  }
  const sortedBy = (map: Map<string, NewCompany>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const nifIds = await ensureCompaniesByNif(
    db,
    sortedBy(byNif).map(([, row]) => row),
  );
  const nameIds = await ensureCompaniesByName(
    db,
    sortedBy(byName).map(([, row]) => row),
  );

  const ids = new Map<string, number>();
  for (const [nif, id] of nifIds) {
    ids.set(`nif:${nif}`, id);
  }
  for (const [name, id] of nameIds) {
    ids.set(`name:${name}`, id);
  }
  const idOf = (party: NormalizedParty): number => {
    const id = ids.get(companyKey(party));
    if (id === undefined) {
      throw new Error(`company not resolved: ${companyKey(party)}`);
    }
    return id;
  };

  const aliases = new Map<string, { company_id: number; alias: string }>();
  const identifiers: { company_id: number; scheme: string; value: string }[] = [];
  for (const party of parties) {
    const id = idOf(party);
    const alias = cleanPartyName(party.name);
    aliases.set(`${id}\u0000${alias}`, { company_id: id, alias });
    if (party.nif) {
      identifiers.push({ company_id: id, scheme: "nif", value: party.nif });
    }
  }
  await addCompanyAliases(db, [...aliases.values()]);
  await addCompanyIdentifiers(db, identifiers);
  await markJointVentures(db, winners.filter((w) => w.isJointVenture).map(idOf));
  await linkCompanyMembers(
    db,
    winners.flatMap((w) => w.members.map((m) => ({ group_id: idOf(w), member_id: idOf(m) }))),
  );
  return ids;
}

/** The identifiers a buyer is matched on, in priority order (NIF, then platform id, then exact name). */
function buyerLookupIdentifiers(buyer: NormalizedBuyer, nameNorm: string): BuyerIdentifier[] {
  const ids: BuyerIdentifier[] = [];
  if (buyer.nif) {
    ids.push({ scheme: "nif", value: buyer.nif });
  }
  if (buyer.platformId) {
    ids.push({ scheme: "placsp_platform", value: buyer.platformId });
  }
  if (ids.length === 0) {
    ids.push({ scheme: "name", value: nameNorm });
  }
  return ids;
}

/**
 * Resolves every buyer of a batch. Buyers already known (the common case) are found with one query and
 * completed with one update; a new buyer is created on its own, so that two notices of one new buyer in the
 * same batch find the first one's identifiers instead of creating it twice.
 */
export async function resolveBuyers(
  db: Queryable,
  buyers: readonly NormalizedBuyer[],
): Promise<Map<NormalizedBuyer, number>> {
  const prepared = buyers.map((buyer) => {
    const nameNorm = normalizePartyName(buyer.name);
    const details: BuyerDetails = {
      name: cleanPartyName(buyer.name),
      name_norm: nameNorm,
      nif: buyer.nif,
      dir3: [...new Set(buyer.dir3)].sort(),
      platform_id: buyer.platformId,
      country: buyer.country,
      nuts: buyer.nuts,
      org_type: buyer.orgType,
    };
    return { buyer, details, lookup: buyerLookupIdentifiers(buyer, nameNorm) };
  });
  const known = await findBuyerIdentifiers(
    db,
    prepared.flatMap((p) => p.lookup),
  );
  const result = new Map<NormalizedBuyer, number>();
  const keyOf = (i: BuyerIdentifier) => `${i.scheme}:${i.value}`;
  for (const p of prepared) {
    let id = p.lookup.map((i) => known.get(keyOf(i))).find((found) => found !== undefined);
    if (id === undefined) {
      // Rare: a buyer never seen. Its identifiers go into `known` at once, so a later notice of the same buyer
      // in this batch finds it instead of creating it twice.
      const created = await insertBuyer(db, p.details);
      id = created;
      await addBuyerIdentifierRows(
        db,
        p.lookup.map((identifier) => ({ buyer_id: created, ...identifier })),
      );
      for (const identifier of p.lookup) {
        known.set(keyOf(identifier), id);
      }
    }
    result.set(p.buyer, id);
  }
  const unique = <T>(rows: T[], key: (row: T) => string) => [
    ...new Map(rows.map((r) => [key(r), r])).values(),
  ];
  await completeBuyers(
    db,
    unique(
      prepared.map((p) => ({ ...p.details, id: result.get(p.buyer) ?? 0 })),
      (r) => JSON.stringify(r),
    ).sort((a, b) => a.id - b.id),
  );
  await addBuyerIdentifierRows(
    db,
    unique(
      prepared.flatMap((p) => {
        const buyerId = result.get(p.buyer) ?? 0;
        return [...p.lookup, ...p.details.dir3.map((value) => ({ scheme: "dir3", value }))].map((i) => ({
          buyer_id: buyerId,
          ...i,
        }));
      }),
      (r) => `${r.scheme}:${r.value}`,
    ),
  );
  await addBuyerAliases(
    db,
    unique(
      prepared.map((p) => ({ buyer_id: result.get(p.buyer) ?? 0, alias: p.details.name })),
      (r) => `${r.buyer_id}:${r.alias}`,
    ),
  );
  return result;
}
