import type { Db, Queryable } from "../../db/client.ts";
import {
  type CpvCodeRow,
  type NutsCodeRow,
  upsertCpvCodes,
  upsertNutsCodes,
} from "../../db/queries/reference.ts";
import { parseCsvRecords } from "../../lib/csv.ts";
import { readTextSource } from "./read-source.ts";

/**
 * Reference data: CPV labels (code, check_digit, label_en, label_es) and NUTS names (code, level, name, …).
 * Rows that do not hold a valid code are counted and skipped, never guessed at; codes not in the file simply
 * keep null labels when served.
 */

const BATCH = 2000;

export interface LoadResult {
  loaded: number;
  skipped: number;
}

export async function loadCpvLabels(db: Db, source: string): Promise<LoadResult> {
  const records = parseCsvRecords(await readTextSource(source));
  requireColumns(records[0], ["code", "label_en", "label_es"], source);
  const rows: CpvCodeRow[] = [];
  let skipped = 0;
  for (const record of records) {
    // Some lists write the check digit into the code ("72000000-5"); the code itself is the 8 digits.
    const match = /^(\d{8})(?:-(\d))?$/.exec((record.code ?? "").trim());
    if (!match?.[1]) {
      skipped++;
      continue;
    }
    const checkDigitText = emptyToNull(record.check_digit) ?? match[2] ?? "";
    rows.push({
      code: match[1],
      checkDigit: /^\d$/.test(checkDigitText) ? Number(checkDigitText) : null,
      labelEn: emptyToNull(record.label_en),
      labelEs: emptyToNull(record.label_es),
    });
  }
  await writeInBatches(db, rows, upsertCpvCodes);
  return { loaded: rows.length, skipped };
}

export async function loadNutsNames(db: Db, source: string): Promise<LoadResult> {
  const records = parseCsvRecords(await readTextSource(source));
  requireColumns(records[0], ["code", "level", "name"], source);
  const rows: NutsCodeRow[] = [];
  let skipped = 0;
  for (const record of records) {
    const code = (record.code ?? "").trim().toUpperCase();
    const level = Number(record.level);
    const name = emptyToNull(record.name);
    if (
      !/^[A-Z]{2}[A-Z0-9]{0,3}$/.test(code) ||
      !Number.isInteger(level) ||
      level < 0 ||
      level > 3 ||
      !name
    ) {
      skipped++;
      continue;
    }
    rows.push({
      code,
      level,
      name,
      nameNational: emptyToNull(record.name_national),
      countryCode: emptyToNull(record.country_code) ?? code.slice(0, 2),
      parentCode: emptyToNull(record.parent_code),
    });
  }
  await writeInBatches(db, rows, upsertNutsCodes);
  return { loaded: rows.length, skipped };
}

function requireColumns(first: Record<string, string> | undefined, columns: string[], source: string): void {
  const missing = columns.filter((column) => !first || !(column in first));
  if (missing.length > 0) {
    throw new Error(
      `${source}: expected a CSV with columns ${columns.join(", ")}; missing ${missing.join(", ")}`,
    );
  }
}

function emptyToNull(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

async function writeInBatches<T>(
  db: Db,
  rows: T[],
  write: (tx: Queryable, batch: T[]) => Promise<void>,
): Promise<void> {
  await db.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += BATCH) {
      await write(tx, rows.slice(i, i + BATCH));
    }
  });
}
