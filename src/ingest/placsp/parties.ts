import { validNif } from "../../lib/nif.ts";
import { cleanPartyName, isJointVenture } from "../../lib/party-names.ts";
import type { FieldError, NormalizedBuyer, NormalizedWinner } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, text } from "../xml/element.ts";
import { cac, cacExt, cbc } from "./namespaces.ts";
import { fieldError, readCountry, readNuts } from "./values.ts";

interface PartyId {
  scheme: string | null;
  value: string;
}

/** Schemes under which a publisher claims the id is a Spanish tax id. */
const TAX_ID_SCHEMES: ReadonlySet<string> = new Set(["NIF", "CIF", "NIE", "DNI"]);
/** Which buyer id becomes `rawId`: the tax id first, then the PLACSP ids, then DIR3. */
const BUYER_ID_PREFERENCE = ["NIF", "ID_PLATAFORMA", "ID_OC_PLAT", "DIR3"];
const PLATFORM_ID_SCHEMES = ["ID_PLATAFORMA", "ID_OC_PLAT"];

/**
 * The contracting body: `CFS/cac-place-ext:LocatedContractingParty/cac:Party`. Only the party's own
 * identifiers are read; the `ParentLocatedParty` hierarchy also carries DIR3 codes, but of its parents.
 * Null when there is no party or it has no name.
 */
export function readBuyer(cfs: XmlElement | null, errors: FieldError[]): NormalizedBuyer | null {
  const located = child(cfs, ...cacExt("LocatedContractingParty"));
  const party = child(located, ...cac("Party"));
  if (!party) {
    return null;
  }
  const rawName = text(path(party, [cac("PartyName"), cbc("Name")]));
  const ids = partyIds(party);
  if (rawName === null) {
    if (ids.length > 0) {
      errors.push({ field: "buyer.name", reason: "contracting party has identifiers but no name" });
    }
    return null;
  }
  const main =
    BUYER_ID_PREFERENCE.map((scheme) => ids.find((id) => id.scheme === scheme)).find(Boolean) ?? ids[0];
  const platform = PLATFORM_ID_SCHEMES.map((scheme) => ids.find((id) => id.scheme === scheme)).find(Boolean);
  return {
    name: cleanPartyName(rawName),
    nif: taxIdOf(ids, "buyer.nif", errors),
    rawId: main?.value ?? null,
    idScheme: main?.scheme ?? null,
    country: readCountry(
      path(party, [cac("PostalAddress"), cac("Country"), cbc("IdentificationCode")]),
      "buyer.country",
      errors,
    ),
    dir3: [...new Set(ids.filter((id) => id.scheme === "DIR3").map((id) => id.value))],
    platformId: platform?.value ?? null,
    nuts: readNuts(path(party, [cac("PostalAddress"), cbc("CountrySubentityCode")]), "buyer.nuts", errors),
    orgType: text(child(located, ...cbc("ContractingPartyTypeCode"))),
  };
}

/**
 * One `cac:WinningParty`. `fallbackCountry` is used when the party has no address country (the result's
 * `AwardedOwnerNationalityCode`). Null, with an error, when the party has no name: a winner cannot be
 * identified by an unnamed id alone, and inventing a name would be worse.
 */
export function readWinner(
  party: XmlElement,
  fallbackCountry: string | null,
  field: string,
  errors: FieldError[],
): NormalizedWinner | null {
  const rawName = text(path(party, [cac("PartyName"), cbc("Name")]));
  const ids = partyIds(party);
  if (rawName === null) {
    errors.push({ field: `${field}.name`, reason: "winning party has no name" });
    return null;
  }
  const name = cleanPartyName(rawName);
  const main = ids.find((id) => id.scheme !== null && TAX_ID_SCHEMES.has(id.scheme)) ?? ids[0];
  const nif = taxIdOf(ids, `${field}.nif`, errors);
  const addressCountry =
    path(party, [cac("PhysicalLocation"), cac("Address"), cac("Country"), cbc("IdentificationCode")]) ??
    path(party, [cac("PostalAddress"), cac("Country"), cbc("IdentificationCode")]);
  return {
    name,
    nif,
    rawId: main?.value ?? null,
    idScheme: main?.scheme ?? null,
    country: readCountry(addressCountry, `${field}.country`, errors) ?? fallbackCountry,
    isJointVenture: isJointVenture(name, nif),
    // PLACSP publishes a joint venture as one party; its members are not named in the feed.
    members: [],
  };
}

function partyIds(party: XmlElement): PartyId[] {
  const ids: PartyId[] = [];
  for (const identification of children(party, ...cac("PartyIdentification"))) {
    for (const id of children(identification, ...cbc("ID"))) {
      const value = text(id);
      if (value !== null) {
        ids.push({ scheme: attr(id, "schemeName"), value });
      }
    }
  }
  return ids;
}

/**
 * The normalized Spanish tax id among the party's ids: one published under a tax-id scheme, or without a
 * scheme, that validates strictly. A tax-id-scheme id that fails validation is reported (it stays in
 * `rawId`); an unschemed id that is not a NIF is not an error, it may be anything.
 */
function taxIdOf(ids: readonly PartyId[], field: string, errors: FieldError[]): string | null {
  for (const id of ids) {
    const claimed = id.scheme !== null && TAX_ID_SCHEMES.has(id.scheme);
    if (!claimed && id.scheme !== null) {
      continue;
    }
    const nif = validNif(id.value);
    if (nif !== null) {
      return nif;
    }
    if (claimed) {
      fieldError(errors, field, "published tax id does not validate", id.value);
    }
  }
  return null;
}
