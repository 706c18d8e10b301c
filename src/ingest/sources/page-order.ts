/**
 * Order of PLACSP page files found by name (in a directory or a ZIP), newest first like the live feed.
 *
 * PLACSP names its pages `{feed}_{YYYYMMDD}_{HHMMSS}[_{n}].atom` (the moment the batch was frozen) and the
 * head `{feed}.atom` (e.g. `licitacionesPerfilesContratanteCompleto3.atom`). Rules, in priority order:
 * 1. names without a timestamp (heads, and any name not in that pattern) come first, by name descending;
 * 2. then timestamped names by timestamp, newest first;
 * 3. within one timestamp, no suffix first, then `_1`, `_2`, … (numerically): a real 2021 archive page
 *    `…_150033_1.atom` links `prev` (newer) to `…_150033.atom` and `next` (older) to the previous timestamp,
 *    so a suffix marks an older slice of the same batch;
 * 4. remaining ties by the whole name, descending, so the order is total and stable.
 * Plain string order gets rule 3 wrong (`_` sorts after `.`), hence this comparator.
 */

const STAMPED = /^(.*)_(\d{8})_(\d{6})(?:_(\d+))?$/;

interface PageName {
  full: string;
  /** `YYYYMMDDHHMMSS`, or null for heads and unrecognised names. */
  stamp: string | null;
  /** The `_n` suffix; 0 when absent. */
  slice: number;
}

/** True for names that hold an ATOM page (`*.atom`, any case), skipping macOS resource-fork debris. */
export function isAtomPageName(name: string): boolean {
  const base = baseName(name);
  return /\.atom$/i.test(base) && !base.startsWith("._") && !name.includes("__MACOSX/");
}

/** Comparator for `Array.prototype.sort`: newest page first (see the module comment for the rules). */
export function comparePageNames(a: string, b: string): number {
  const x = parseName(a);
  const y = parseName(b);
  if ((x.stamp === null) !== (y.stamp === null)) {
    return x.stamp === null ? -1 : 1;
  }
  if (x.stamp !== null && y.stamp !== null && x.stamp !== y.stamp) {
    return x.stamp > y.stamp ? -1 : 1;
  }
  if (x.slice !== y.slice) {
    return x.slice - y.slice;
  }
  return descending(baseName(a), baseName(b)) || descending(x.full, y.full);
}

function parseName(name: string): PageName {
  const stem = baseName(name).replace(/\.atom$/i, "");
  const match = STAMPED.exec(stem);
  if (match === null) {
    return { full: name, stamp: null, slice: 0 };
  }
  const [, , date = "", time = "", slice] = match;
  return { full: name, stamp: `${date}${time}`, slice: slice === undefined ? 0 : Number(slice) };
}

function baseName(name: string): string {
  const cut = Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\"));
  return name.slice(cut + 1);
}

function descending(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a > b ? -1 : 1;
}
