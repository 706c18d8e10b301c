import type { Queryable } from "../../src/db/client.ts";

/**
 * Minimal rows for tests that need data before ingestion exists in the test (plain SQL: tests may write it,
 * application code may not outside db/queries).
 */

export async function insertBuyer(db: Queryable, name: string, nif: string | null = null): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    "INSERT INTO buyers (name, name_norm, nif) VALUES ($1, lower($1), $2) RETURNING id",
    [name, nif],
  );
  return rows[0]?.id ?? Number.NaN;
}

export async function insertCompany(db: Queryable, name: string, nif: string | null = null): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    "INSERT INTO companies (name, name_norm, nif) VALUES ($1, lower($1), $2) RETURNING id",
    [name, nif],
  );
  return rows[0]?.id ?? Number.NaN;
}

export interface TenderSeed {
  sourceRef: string;
  title?: string;
  buyerId?: number | null;
  cpvAll?: string[];
  publicationDate?: string | null;
  deadline?: string | null;
  estimatedValue?: number | null;
  url?: string | null;
  source?: "placsp" | "ted";
  /** The common vocabulary's procedure type; `open` unless given. */
  procedureType?: string;
}

export async function insertTender(db: Queryable, seed: TenderSeed): Promise<number> {
  const cpvAll = seed.cpvAll ?? ["72000000"];
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO tenders (source, source_ref, title, buyer_id, cpv_main, cpv_all, publication_date, deadline,
                          estimated_value, currency, url, notice_type, procedure_type, contract_type, nuts, status,
                          source_codes, upstream_updated, raw_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'EUR', $10, 'award-notice', $11, 'services', 'ES300', 'awarded',
             '{"notice": "DOC_CAN_ADJ", "procedure": "1", "contract": "2", "status": "ADJ"}', now(), 'seed')
     RETURNING id`,
    [
      seed.source ?? "placsp",
      seed.sourceRef,
      seed.title ?? "Servicio de mantenimiento de sistemas",
      seed.buyerId ?? null,
      cpvAll[0] ?? null,
      cpvAll,
      seed.publicationDate === undefined ? "2025-03-01" : seed.publicationDate,
      seed.deadline ?? null,
      seed.estimatedValue ?? null,
      seed.url ?? null,
      seed.procedureType ?? "open",
    ],
  );
  return rows[0]?.id ?? Number.NaN;
}

export interface AwardSeed {
  tenderId: number;
  lot?: string | null;
  winnerId?: number | null;
  value?: number | null;
  framework?: boolean;
  awardDate?: string | null;
  biddersCount?: number | null;
}

export async function insertAward(db: Queryable, seed: AwardSeed): Promise<number> {
  const framework = seed.framework ?? false;
  const value = seed.value ?? null;
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO awards (tender_id, award_key, source, source_ref, lot, result_code, award_date, winner_company_id,
                         value, currency, bidders_count, framework, value_is_ceiling, duration_months)
     VALUES ($1, $2, 'placsp', $3, $4, '8', $5, $6, $7, 'EUR', $8, $9, $10, 12)
     RETURNING id`,
    [
      seed.tenderId,
      `lot:${seed.lot ?? ""}|winner:${seed.winnerId ?? ""}`,
      `award-${seed.tenderId}-${seed.lot ?? "0"}`,
      seed.lot ?? null,
      seed.awardDate ?? "2025-04-15",
      seed.winnerId ?? null,
      value,
      seed.biddersCount ?? null,
      framework,
      framework && value !== null,
    ],
  );
  return rows[0]?.id ?? Number.NaN;
}
