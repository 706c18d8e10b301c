import type { ExamplesFile } from "../../src/http/openapi-examples.ts";

/** The file's bytes: two-space JSON with a final newline (what Biome's formatter leaves alone). */
export function serialiseExamples(examples: ExamplesFile): string {
  return `${JSON.stringify(examples, null, 2)}\n`;
}
