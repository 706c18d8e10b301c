import type { FieldError } from "../model.ts";
import { fieldError } from "../values.ts";

/**
 * A source code list mapped to the common vocabulary: every code the source's list defines is a key. A code
 * the list defines but that has no common value (a business-registration notice is not procurement) maps to
 * null on purpose; a code that is not a key at all is unknown.
 */
export type VocabularyMap<T extends string> = Readonly<Record<string, T | null>>;

/**
 * The common value of a published code. Absent code: null. Unknown code: null and a `FieldError` naming the
 * list, so the ingest run records it; the caller keeps the raw code in `sourceCodes` either way. Nothing is
 * guessed from a code's shape (an unknown `ANUL_X` is not assumed to be a cancellation).
 */
export function mapCode<T extends string>(
  map: VocabularyMap<T>,
  raw: string | null,
  field: string,
  list: string,
  errors: FieldError[],
): T | null {
  if (raw === null) {
    return null;
  }
  if (!Object.hasOwn(map, raw)) {
    fieldError(errors, field, `not a code of ${list}`, raw);
    return null;
  }
  return map[raw] ?? null;
}
