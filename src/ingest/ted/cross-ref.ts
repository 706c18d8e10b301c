import type { XmlElement } from "../xml/element.ts";
import { text } from "../xml/element.ts";

/**
 * A PLACSP procedure page linked from a TED notice (tender documents, submission or buyer-profile links):
 * `https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=…`. That deeplink is
 * exactly the `url` the PLACSP normalizer stores for the same procedure, so it is the TED side's reference
 * to the other source. Only an element whose whole text is such a link counts: a link quoted inside a
 * description may well be another procedure's.
 */
const PLACSP_DEEPLINK_RE = new RegExp(
  "^https?://(?:www\\.)?contrataciondelestado\\.es/wps/poc\\?uri=deeplink:detalle_licitacion" +
    "&idEvl=([^&\\s]+)(?:&\\S*)?$",
);

/**
 * The first PLACSP procedure deeplink in the notice, in document order, rewritten to the canonical
 * `https://contrataciondelestado.es/…&idEvl=…` form (scheme and host unified, other query parameters
 * dropped), or null. eForms elements (`cbc:URI`, `cbc:EndpointID`) and R2.0.9 ones (`URL_DOCUMENT`,
 * `URL_PARTICIPATION`) are all covered by scanning every element's own text.
 */
export function findPlacspReference(root: XmlElement): string | null {
  const stack: XmlElement[] = [root];
  for (let el = stack.pop(); el !== undefined; el = stack.pop()) {
    const value = text(el);
    const match = value === null ? null : PLACSP_DEEPLINK_RE.exec(value);
    if (match?.[1]) {
      return `https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=${match[1]}`;
    }
    // Children pushed in reverse so that they are visited in document order.
    for (let i = el.children.length - 1; i >= 0; i--) {
      const next = el.children[i];
      if (next !== undefined) {
        stack.push(next);
      }
    }
  }
  return null;
}
