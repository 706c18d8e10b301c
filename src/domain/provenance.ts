/** Where a record comes from: the upstream source, its own reference and, when known, the notice URL. */
export interface Provenance {
  source: "placsp" | "ted";
  source_ref: string;
  url?: string;
}

export function provenanceOf(row: { source: string; source_ref: string; url: string | null }): Provenance {
  const source = row.source === "ted" ? "ted" : "placsp";
  return row.url
    ? { source, source_ref: row.source_ref, url: row.url }
    : { source, source_ref: row.source_ref };
}
