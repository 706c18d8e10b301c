/** Positional parameters collected while a statement is built: `add` binds a value and returns its `$n`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The Spanish plain-text query of a bound text parameter, as search and research match it. */
export function spanishTsquery(param: string): string {
  return `plainto_tsquery('spanish', immutable_unaccent(${param}))`;
}
