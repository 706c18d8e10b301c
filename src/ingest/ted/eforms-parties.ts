import type { FieldError, NormalizedBuyer, NormalizedParty, NormalizedWinner } from "../model.ts";
import type { XmlElement } from "../xml/element.ts";
import { attr, child, children, path, pathAll, text } from "../xml/element.ts";
import { readOrganization } from "./eforms-orgs.ts";
import { cac, cbc, efac, efbc } from "./namespaces.ts";
import { toGroup, toParty, toWinner } from "./party.ts";
import { parseNuts } from "./values.ts";

/**
 * The buyer. A notice can name several buyers (joint procurement: four `cac:ContractingParty` in
 * 00611835-2024); the model holds one, so it is the first, which is the lead buyer in every notice seen.
 * Its eSender (`cac:ServiceProviderParty`) is never taken for it. Null, with an error, when the buyer's
 * organisation cannot be found or has no name.
 */
export function readBuyer(
  root: XmlElement,
  organizations: ReadonlyMap<string, XmlElement>,
  errors: FieldError[],
): NormalizedBuyer | null {
  const contracting = child(root, ...cac("ContractingParty"));
  if (!contracting) {
    return null;
  }
  const orgId = text(path(contracting, [cac("Party"), cac("PartyIdentification"), cbc("ID")]));
  const company = orgId === null ? undefined : organizations.get(orgId);
  if (company === undefined) {
    errors.push({ field: "buyer", reason: `buyer organisation ${orgId ?? "(no id)"} not found` });
    return null;
  }
  const published = readOrganization(company, "buyer", errors);
  if (published === null) {
    return null;
  }
  return {
    ...toParty(published),
    dir3: [],
    platformId: null,
    nuts: parseNuts(
      text(path(company, [cac("PostalAddress"), cbc("CountrySubentityCode")])),
      "buyer.nuts",
      errors,
    ),
    orgType: buyerLegalType(contracting),
  };
}

/**
 * BT-11 buyer legal type (`cga`, `ra`, `body-pl`…). `cbc:PartyTypeCode` also carries the contracting type
 * (`@listName="buyer-contracting-type"`), so the legal type is the one with its listName, else one without
 * any listName.
 */
function buyerLegalType(contracting: XmlElement): string | null {
  const codes = pathAll(contracting, [cac("ContractingPartyType"), cbc("PartyTypeCode")]);
  const legal =
    codes.find((code) => attr(code, "listName") === "buyer-legal-type") ??
    codes.find((code) => attr(code, "listName") === null);
  return text(legal);
}

/**
 * The winner behind one `efac:TenderingParty` (`TPA-…`): its `efac:Tenderer`s lead to organisations. One
 * tenderer is a single winner; several are a consortium, returned as one group winner with its members
 * (the lead member, `efbc:GroupLeadIndicator` true, first). Null, with an error, when the party has no
 * tenderer or none of its organisations can be read (ted.md §6.5: keep the award, never guess a winner).
 */
export function readTenderingPartyWinner(
  tenderingParty: XmlElement,
  organizations: ReadonlyMap<string, XmlElement>,
  field: string,
  errors: FieldError[],
): NormalizedWinner | null {
  const tenderers = children(tenderingParty, ...efac("Tenderer"));
  const lead = tenderers.filter((t) => text(child(t, ...efbc("GroupLeadIndicator"))) === "true");
  const ordered = [...lead, ...tenderers.filter((t) => !lead.includes(t))];
  const published = ordered.flatMap((tenderer, i) => {
    const orgId = text(child(tenderer, ...cbc("ID")));
    const company = orgId === null ? undefined : organizations.get(orgId);
    if (company === undefined) {
      errors.push({
        field: `${field}.tenderers[${i}]`,
        reason: `organisation ${orgId ?? "(no id)"} not found`,
      });
      return [];
    }
    const org = readOrganization(company, `${field}.tenderers[${i}]`, errors);
    return org === null ? [] : [org];
  });
  if (tenderers.length === 0) {
    errors.push({ field, reason: "tendering party has no tenderer; winner unknown" });
  }
  const [only] = published;
  if (only === undefined) {
    return null;
  }
  if (tenderers.length === 1) {
    return toWinner(only, field, errors);
  }
  const members: NormalizedParty[] = published.map(toParty);
  return toGroup(members, text(child(tenderingParty, ...cbc("Name"))));
}
