import { readFileSync } from "node:fs";
import { SHARED_DIR } from "./engines.ts";

/** The interface contract, read in place. Tests compare the service against it, not against our own tables. */
export const SPEC_TEXT = readFileSync(`${SHARED_DIR}SPEC.md`, "utf8");

export interface SpecEndpoint {
  endpoint: string;
  /** "0.02"-style price, "free" for free endpoints, or the spec's wording for the others (dev mode only, n/a). */
  price: string;
}

/** Rows of the spec's Endpoints table, endpoint named `METHOD /path/:param`. */
export function specEndpoints(): SpecEndpoint[] {
  const section = SPEC_TEXT.split("## Endpoints")[1]?.split("\n### ")[0] ?? "";
  const rows: SpecEndpoint[] = [];
  for (const line of section.split("\n")) {
    const match = /^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|$/.exec(line.trim());
    if (match?.[1] && match[2] && match[3]) {
      const path = match[2].replace(/\{([^}]+)\}/g, ":$1");
      const price = match[3].trim();
      rows.push({ endpoint: `${match[1]} ${path}`, price: price.startsWith("free") ? "free" : price });
    }
  }
  return rows;
}
