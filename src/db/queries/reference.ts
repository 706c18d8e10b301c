import type { Queryable } from "../client.ts";

export interface CpvCodeRow {
  code: string;
  checkDigit: number | null;
  labelEn: string | null;
  labelEs: string | null;
}

export interface NutsCodeRow {
  code: string;
  level: number;
  name: string;
  nameNational: string | null;
  countryCode: string;
  parentCode: string | null;
}

/** Inserts or refreshes CPV labels; one statement per batch through unnest() of parallel arrays. */
export async function upsertCpvCodes(db: Queryable, rows: readonly CpvCodeRow[]): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  await db.query(
    `INSERT INTO cpv_codes (code, check_digit, label_en, label_es)
     SELECT * FROM unnest($1::text[], $2::smallint[], $3::text[], $4::text[])
     ON CONFLICT (code) DO UPDATE
       SET check_digit = EXCLUDED.check_digit, label_en = EXCLUDED.label_en, label_es = EXCLUDED.label_es`,
    [
      rows.map((r) => r.code),
      rows.map((r) => r.checkDigit),
      rows.map((r) => r.labelEn),
      rows.map((r) => r.labelEs),
    ],
  );
}

export async function upsertNutsCodes(db: Queryable, rows: readonly NutsCodeRow[]): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  await db.query(
    `INSERT INTO nuts_codes (code, level, name, name_national, country_code, parent_code)
     SELECT * FROM unnest($1::text[], $2::smallint[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (code) DO UPDATE
       SET level = EXCLUDED.level, name = EXCLUDED.name, name_national = EXCLUDED.name_national,
           country_code = EXCLUDED.country_code, parent_code = EXCLUDED.parent_code`,
    [
      rows.map((r) => r.code),
      rows.map((r) => r.level),
      rows.map((r) => r.name),
      rows.map((r) => r.nameNational),
      rows.map((r) => r.countryCode),
      rows.map((r) => r.parentCode),
    ],
  );
}

export async function findCpvLabels(
  db: Queryable,
  codes: readonly string[],
): Promise<Map<string, { label_en: string | null; label_es: string | null }>> {
  const { rows } = await db.query<{ code: string; label_en: string | null; label_es: string | null }>(
    "SELECT code, label_en, label_es FROM cpv_codes WHERE code = ANY($1::text[])",
    [codes],
  );
  return new Map(rows.map((row) => [row.code, { label_en: row.label_en, label_es: row.label_es }]));
}
