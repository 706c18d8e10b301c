import type { FieldError, NormalizedBuyer, NormalizedWinner } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, pathAll, text } from "../xml/element.ts";
import { n2016, ted } from "./namespaces.ts";
import type { PublishedParty } from "./party.ts";
import { toGroup, toParty, toWinner } from "./party.ts";
import { parseCountryLegacy, parseNuts } from "./values.ts";

/**
 * Parties of an R2.0.9 form: the contracting authority and the contractors of an award. R2.0.9 writes them
 * as address blocks (`OFFICIALNAME`, `NATIONALID`, `COUNTRY/@VALUE`, `n2016:NUTS`); party.ts turns them into
 * the model's parties with the same rules as eForms organisations.
 */

/**
 * The winner of one `AWARDED_CONTRACT`: one `CONTRACTOR`, unpacked into a group when it is a comma-joined
 * list of companies (party.ts); several `CONTRACTOR`s (`AWARDED_TO_GROUP`) are one group winner with the
 * first listed as lead. Null when no contractor is named.
 */
export function readR209Winner(
  awarded: XmlElement,
  field: string,
  errors: FieldError[],
): NormalizedWinner | null {
  // R2.0.9 S02 wraps contractors in CONTRACTORS; some older exports put CONTRACTOR directly.
  const contractors = [
    ...pathAll(awarded, [ted("CONTRACTORS"), ted("CONTRACTOR")]),
    ...children(awarded, ...ted("CONTRACTOR")),
  ];
  const published = contractors.flatMap((contractor, i) => {
    const party = readAddress(
      child(contractor, ...ted("ADDRESS_CONTRACTOR")),
      `${field}.contractors[${i}]`,
      errors,
    );
    return party === null ? [] : [party.published];
  });
  const [only] = published;
  if (only === undefined) {
    if (contractors.length > 0) {
      errors.push({ field, reason: "contractor has no name; winner unknown" });
    }
    return null;
  }
  if (contractors.length === 1) {
    return toWinner(only, field, errors);
  }
  return toGroup(published.map(toParty), null);
}

/** The contracting authority: `CONTRACTING_BODY/ADDRESS_CONTRACTING_BODY`, `CA_TYPE/@VALUE` as orgType. */
export function readR209Buyer(form: XmlElement, errors: FieldError[]): NormalizedBuyer | null {
  const body = child(form, ...ted("CONTRACTING_BODY"));
  const party = readAddress(child(body, ...ted("ADDRESS_CONTRACTING_BODY")), "buyer", errors);
  if (party === null) {
    return null;
  }
  return {
    ...toParty(party.published),
    dir3: [],
    platformId: null,
    nuts: party.nuts,
    // CA_TYPE_OTHER is free text, not a code: it is not a type code "as published".
    orgType: attr(child(body, ...ted("CA_TYPE")), "VALUE"),
  };
}

/**
 * An R2.0.9 address block (`ADDRESS_CONTRACTING_BODY`, `ADDRESS_CONTRACTOR`): `OFFICIALNAME`,
 * `NATIONALID` (free text), `COUNTRY/@VALUE` (`UK` read as `GB`) and `n2016:NUTS/@CODE`.
 */
function readAddress(
  address: XmlElement | null,
  field: string,
  errors: FieldError[],
): { published: PublishedParty; nuts: string | null } | null {
  if (!address) {
    return null;
  }
  const name = text(child(address, ...ted("OFFICIALNAME")));
  if (name === null) {
    errors.push({ field: `${field}.name`, reason: "address has no OFFICIALNAME" });
    return null;
  }
  return {
    published: {
      name,
      rawId: text(child(address, ...ted("NATIONALID"))),
      idScheme: null,
      country: parseCountryLegacy(
        attr(child(address, ...ted("COUNTRY")), "VALUE"),
        `${field}.country`,
        errors,
      ),
    },
    nuts: parseNuts(attr(child(address, ...n2016("NUTS")), "CODE"), `${field}.nuts`, errors),
  };
}
