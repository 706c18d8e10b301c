import { checkTaxId, validNif } from "../../lib/nif.ts";
import { cleanPartyName, isJointVenture, normalizePartyName } from "../../lib/party-names.ts";
import type { FieldError, NormalizedParty, NormalizedWinner } from "../model.ts";

/**
 * Parties as TED publishes them, for both formats: a name, a free-text national id (eForms BT-501
 * `CompanyID`, R2.0.9 `NATIONALID`) and a country. Builds the model's parties, deciding which ids count as
 * Spanish NIFs and unpacking the Spanish habit of writing a whole framework's or consortium's companies in
 * one party ("A, S. L., B, S. L." with ids "B…, B…").
 */

/** A party as read from the notice, before normalization. */
export interface PublishedParty {
  name: string;
  /** The national id as published (any scheme, possibly junk), or null. */
  rawId: string | null;
  /** eForms `CompanyID/@schemeID` as published (`002`…), or null; R2.0.9 has none. */
  idScheme: string | null;
  /** ISO alpha-2, or null when unknown. */
  country: string | null;
}

/** An explicit Spanish VAT prefix (`ES B12345674`, `ESB12345674`) on an id. */
const SPANISH_VAT_PREFIX = /^ES[\s.-]?[0-9A-Z]/i;
/** Separators between the ids of a joined list (`B78970506, B58671710`). */
const ID_LIST_SEPARATOR = /[,;]/;
/** One id of a list: at least 5 characters, no spaces, at least one digit. */
const ID_TOKEN_RE = /^(?=.*\d)[0-9A-Za-z][0-9A-Za-z./-]{4,}$/;

/**
 * The party's Spanish NIF, or null. An id counts when it validates strictly (`validNif`) and the party is
 * Spanish or of unknown country. For a party with a foreign address, TED ids are foreign free text, and a
 * digits-plus-letter id (Irish, Cypriot VAT…) passes the DNI/NIE checksum 1 time in 23, which would merge
 * a foreign company with a Spanish person; so there only an organisation NIF ("CIF": letter, 7 digits,
 * control, a shape no foreign scheme uses without its own country prefix) or an id written with the `ES`
 * VAT prefix counts.
 */
export function spanishNif(rawId: string | null, country: string | null): string | null {
  if (rawId === null) {
    return null;
  }
  const nif = validNif(rawId);
  if (nif === null || country === null || country === "ES") {
    return nif;
  }
  return SPANISH_VAT_PREFIX.test(rawId.trim()) || checkTaxId(nif).kind === "CIF" ? nif : null;
}

/** A member or buyer party: cleaned name, NIF when it qualifies, the id kept as published. */
export function toParty(published: PublishedParty): NormalizedParty {
  return {
    name: cleanPartyName(published.name),
    nif: spanishNif(published.rawId, published.country),
    rawId: published.rawId,
    idScheme: published.idScheme,
    country: published.country,
  };
}

/**
 * A winner from one published party. When its id field is a list of ids and its name a comma-joined list
 * of as many companies, it is unpacked into a group (see `splitJoinedParty`); otherwise it is a single
 * winner, flagged as a joint venture when its name or NIF says so (UTE, consortium, …).
 */
export function toWinner(published: PublishedParty, field: string, errors: FieldError[]): NormalizedWinner {
  const members = splitJoinedParty(published, field, errors);
  if (members !== null) {
    return {
      name: cleanPartyName(published.name),
      nif: null,
      rawId: published.rawId,
      idScheme: published.idScheme,
      country: published.country,
      isJointVenture: true,
      members,
    };
  }
  const party = toParty(published);
  return { ...party, isJointVenture: isJointVenture(party.name, party.nif), members: [] };
}

/**
 * A group of several published parties (eForms: several `efac:Tenderer` in one `efac:TenderingParty`;
 * R2.0.9: `AWARDED_TO_GROUP` with several `CONTRACTOR`). The group has no id of its own. Its name is the
 * published group name when there is one (eForms `TenderingParty/cbc:Name`), else the members' names
 * joined with ", " (the lead member first), which is how Spanish notices write such groups themselves, so
 * both spellings of one group get the same name. Its country is the lead member's.
 */
export function toGroup(
  members: readonly NormalizedParty[],
  publishedName: string | null,
): NormalizedWinner | null {
  const lead = members[0];
  if (lead === undefined) {
    return null;
  }
  const name = publishedName === null ? members.map((m) => m.name).join(", ") : cleanPartyName(publishedName);
  return {
    name,
    nif: null,
    rawId: null,
    idScheme: null,
    country: lead.country ?? members.find((m) => m.country !== null)?.country ?? null,
    isJointVenture: true,
    members: [...members],
  };
}

/**
 * The members of a party that is really several companies written as one (ted.md §6.3): the id field holds
 * a list of at least two ids, and the name a comma-joined list of names. Names are split on commas, then
 * fragments that are only a legal form ("S. L.", "S. L. P.") are glued back to the name before them, since
 * "Ernst & Young, S. L." is one company. Names and ids are paired by position when the counts match; when
 * they do not, the pairing is unknowable, so the members keep their names without ids and a `FieldError`
 * says so. Null when the party is not a joined list.
 */
export function splitJoinedParty(
  published: PublishedParty,
  field: string,
  errors: FieldError[],
): NormalizedParty[] | null {
  const ids = splitIds(published.rawId);
  if (ids === null) {
    return null;
  }
  const names = splitNames(published.name);
  if (names.length === ids.length) {
    return names.map((name, i) =>
      toParty({ name, rawId: ids[i] ?? null, idScheme: published.idScheme, country: published.country }),
    );
  }
  errors.push({
    field,
    reason: `${ids.length} ids but ${names.length} names in one party; ids not attributed to members`,
  });
  if (names.length < 2) {
    return null;
  }
  return names.map((name) => toParty({ name, rawId: null, idScheme: null, country: published.country }));
}

function splitIds(rawId: string | null): string[] | null {
  if (rawId === null || !ID_LIST_SEPARATOR.test(rawId)) {
    return null;
  }
  const parts = rawId
    .split(ID_LIST_SEPARATOR)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length < 2 || !parts.every((part) => ID_TOKEN_RE.test(part))) {
    return null;
  }
  return parts;
}

function splitNames(name: string): string[] {
  const names: string[] = [];
  for (const fragment of cleanPartyName(name).split(",")) {
    const trimmed = fragment.trim();
    if (trimmed === "") {
      continue;
    }
    const previous = names.length - 1;
    if (previous >= 0 && isLegalFormOnly(trimmed)) {
      names[previous] = `${names[previous]}, ${trimmed}`;
    } else {
      names.push(trimmed);
    }
  }
  return names;
}

/**
 * Whether a fragment is nothing but a legal form or status designation. Reuses the party-name key's own
 * list instead of a second one: appended to a one-token name, a designation is stripped from the key.
 */
function isLegalFormOnly(fragment: string): boolean {
  return normalizePartyName(`x ${fragment}`) === "x";
}
