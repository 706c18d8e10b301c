/**
 * A small, immutable-by-convention element tree for one XML record (an ATOM entry, a TED notice), plus
 * helpers that navigate it by namespace URI and local name. Prefixes are never looked at: they differ
 * between feeds and years for the same namespace, so matching on them breaks silently.
 */

export interface XmlElement {
  /** Namespace URI ("" when the element is in no namespace). */
  ns: string;
  /** Local name, without prefix. */
  name: string;
  /**
   * Attributes by local name (namespace declarations excluded). If an unprefixed and a prefixed attribute
   * share a local name, the unprefixed one wins: every attribute we read (schemeName, currencyID,
   * unitCode, ref, when, type, href, rel) is unprefixed.
   */
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated character data directly inside this element (not trimmed; CDATA included). */
  text: string;
}

/** One navigation step: namespace URI and local name. */
export type XmlStep = readonly [ns: string, name: string];

/** The first child with this namespace and local name, or null. */
export function child(el: XmlElement | null | undefined, ns: string, name: string): XmlElement | null {
  if (!el) {
    return null;
  }
  for (const c of el.children) {
    if (c.name === name && c.ns === ns) {
      return c;
    }
  }
  return null;
}

/** Every child with this namespace and local name, in document order. */
export function children(el: XmlElement | null | undefined, ns: string, name: string): XmlElement[] {
  if (!el) {
    return [];
  }
  return el.children.filter((c) => c.name === name && c.ns === ns);
}

/** Follows the first matching child at each step; null as soon as a step has no match. */
export function path(el: XmlElement | null | undefined, steps: readonly XmlStep[]): XmlElement | null {
  let current: XmlElement | null = el ?? null;
  for (const [ns, name] of steps) {
    current = child(current, ns, name);
    if (!current) {
      return null;
    }
  }
  return current;
}

/** Every element reachable through the steps, following all matching children at each step. */
export function pathAll(el: XmlElement | null | undefined, steps: readonly XmlStep[]): XmlElement[] {
  let current: XmlElement[] = el ? [el] : [];
  for (const [ns, name] of steps) {
    current = current.flatMap((e) => children(e, ns, name));
  }
  return current;
}

/** Trimmed text content, or null when the element is missing or its text is empty. */
export function text(el: XmlElement | null | undefined): string | null {
  if (!el) {
    return null;
  }
  const trimmed = el.text.trim();
  return trimmed === "" ? null : trimmed;
}

/** `text(path(el, steps))`. */
export function textAt(el: XmlElement | null | undefined, steps: readonly XmlStep[]): string | null {
  return text(path(el, steps));
}

/** Trimmed attribute value by local name, or null when missing or empty. */
export function attr(el: XmlElement | null | undefined, name: string): string | null {
  const value = el?.attrs[name];
  if (value === undefined) {
    return null;
  }
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}
