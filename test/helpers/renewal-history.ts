import type { Queryable } from "../../src/db/client.ts";
import { insertBuyer, insertCompany, insertTender } from "./factories.ts";

export interface ContractSeed {
  tenderId: number;
  lot?: string;
  winnerId: number | null;
  /** The lot's CPV; null: the tender's main CPV applies. */
  cpv: string | null;
  awardDate?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  durationMonths?: number | null;
  framework?: boolean;
  extensionText?: string | null;
  extensionMonths?: number | null;
}

/** An award with the contract facts the heuristic reads (the shared factory fixes duration at 12). */
export async function insertContract(db: Queryable, seed: ContractSeed): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO awards (tender_id, award_key, source, source_ref, lot, result_code, award_date, winner_company_id,
                         winner_name, currency, framework, duration_months, start_date, start_date_kind, end_date,
                         cpv, extension_text, extension_months)
     VALUES ($1, $2, 'placsp', $3, $4, '8', $5, $6, CASE WHEN $6::bigint IS NULL THEN NULL ELSE 'winner' END,
             'EUR', $7, $8, $9, CASE WHEN $9::date IS NULL THEN NULL ELSE 'actual' END, $10, $11, $12, $13)
     RETURNING id`,
    [
      seed.tenderId,
      `lot:${seed.lot ?? ""}|winner:${seed.winnerId ?? ""}`,
      `award-ref-${seed.tenderId}-${seed.lot ?? "0"}`,
      seed.lot ?? null,
      seed.awardDate ?? null,
      seed.winnerId,
      seed.framework ?? false,
      seed.durationMonths ?? null,
      seed.startDate ?? null,
      seed.endDate ?? null,
      seed.cpv,
      seed.extensionText ?? null,
      seed.extensionMonths ?? null,
    ],
  );
  return rows[0]?.id ?? Number.NaN;
}

/*
 * Crafted history.
 * Buyer B1 (one award per CPV division, so no recurrence):
 *   A1 72212000 award 2023-03-01, start 2023-04-01, published end 2025-03-31           -> duration high
 *      window: 2025-03-31 - 6 months = 2024-09-30 (day clamped), + 2 months = 2025-05-31
 *      T9 (72500000, published 2025-01-20, after the award and before the window's end) re-tenders it.
 *   A2 79400000 award 2024-01-20, start 2024-02-15, 12 months: end 2025-02-15            -> duration medium
 *      window 2024-08-15 .. 2025-04-15
 *   A3 50300000 award 2024-05-20, 24 months, no start: end 2026-05-20                    -> duration low
 *      window 2025-11-20 .. 2026-07-20
 *   A4 48000000 framework, start 2023-01-01, 36 months: end 2026-01-01                 -> framework medium
 *      window: - 9 months = 2025-04-01, + 3 months = 2026-04-01
 *   A5 64200000 published end 2025-12-31, extension 12 months announced                 -> duration low
 *      max_end_date 2026-12-31; window 2025-06-30 .. 2026-02-28
 *   A6 30200000 desierto (no winner), 12 months: a void result is no contract            -> nothing
 * Buyer B2, division 48, no durations (recurrence only):
 *   T20 3 lots awarded 2021-03-01 (one event), T21 2022-03-01, T22 2023-03-15
 *   events 2021-03-01, 2022-03-01, 2023-03-15: intervals 365, 379, median 372
 *   predicted 2023-03-15 + 372 = 2024-03-21; margin round(0.25 * 372) = 93: 2023-12-19 .. 2024-06-22; high
 *   (counting the lots as events would give intervals 0, 0, 365, 379 and a median of 182.5)
 * Buyer B3, division 72: awards 2022-06-01 and 2023-06-01: interval 365, predicted 2024-05-31 (2024 is a leap
 *   year), margin round(91.25) = 91: 2024-03-01 .. 2024-08-30; exactly 2 events: medium.
 */
export interface RenewalHistory {
  b1: number;
  b2: number;
  b3: number;
  ids: Record<string, number>;
}

export async function seedRenewalHistory(db: Queryable): Promise<RenewalHistory> {
  const ids: Record<string, number> = {};
  const b1 = await insertBuyer(db, "Ayuntamiento de Prueba");
  const b2 = await insertBuyer(db, "Consejería de Ensayo");
  const b3 = await insertBuyer(db, "Diputación de Muestra");
  const c1 = await insertCompany(db, "Acme Sistemas SL");
  // Buyer fragments are matched against published names (aliases).
  await db.query(
    "INSERT INTO buyer_aliases (buyer_id, alias) SELECT id, name FROM buyers WHERE id = ANY($1)",
    [[b1, b2, b3]],
  );
  const tender = (ref: string, buyerId: number, cpv: string, publicationDate: string) =>
    insertTender(db, { sourceRef: ref, buyerId, cpvAll: [cpv], publicationDate });
  ids.T1 = await tender("T1", b1, "72212000", "2023-01-10");
  ids.A1 = await insertContract(db, {
    tenderId: ids.T1,
    winnerId: c1,
    cpv: "72212000",
    awardDate: "2023-03-01",
    startDate: "2023-04-01",
    endDate: "2025-03-31",
  });
  ids.T2 = await tender("T2", b1, "79400000", "2023-11-01");
  ids.A2 = await insertContract(db, {
    tenderId: ids.T2,
    winnerId: c1,
    cpv: "79400000",
    awardDate: "2024-01-20",
    startDate: "2024-02-15",
    durationMonths: 12,
  });
  ids.T3 = await tender("T3", b1, "50300000", "2024-03-01");
  ids.A3 = await insertContract(db, {
    tenderId: ids.T3,
    winnerId: c1,
    cpv: "50300000",
    awardDate: "2024-05-20",
    durationMonths: 24,
  });
  ids.T4 = await tender("T4", b1, "48000000", "2022-10-01");
  ids.A4 = await insertContract(db, {
    tenderId: ids.T4,
    winnerId: c1,
    cpv: "48000000",
    framework: true,
    awardDate: "2022-12-01",
    startDate: "2023-01-01",
    durationMonths: 36,
  });
  ids.T5 = await tender("T5", b1, "64200000", "2024-10-01");
  ids.A5 = await insertContract(db, {
    tenderId: ids.T5,
    winnerId: c1,
    cpv: "64200000",
    awardDate: "2024-12-01",
    endDate: "2025-12-31",
    extensionText: "Prórroga por 12 meses adicionales",
    extensionMonths: 12,
  });
  ids.T6 = await tender("T6", b1, "30200000", "2024-01-01");
  ids.A6 = await insertContract(db, {
    tenderId: ids.T6,
    winnerId: null,
    cpv: "30200000",
    awardDate: "2024-03-01",
    durationMonths: 12,
  });
  ids.T9 = await tender("T9", b1, "72500000", "2025-01-20");

  ids.T20 = await tender("T20", b2, "48000000", "2021-01-01");
  for (const lot of ["1", "2", "3"]) {
    await insertContract(db, {
      tenderId: ids.T20,
      lot,
      winnerId: c1,
      cpv: "48000000",
      awardDate: "2021-03-01",
    });
  }
  ids.T21 = await tender("T21", b2, "48100000", "2022-01-01");
  await insertContract(db, { tenderId: ids.T21, winnerId: c1, cpv: "48100000", awardDate: "2022-03-01" });
  ids.T22 = await tender("T22", b2, "48200000", "2023-01-01");
  ids.A22 = await insertContract(db, {
    tenderId: ids.T22,
    winnerId: c1,
    cpv: "48200000",
    awardDate: "2023-03-15",
  });

  ids.T30 = await tender("T30", b3, "72000000", "2022-04-01");
  await insertContract(db, { tenderId: ids.T30, winnerId: c1, cpv: "72000000", awardDate: "2022-06-01" });
  ids.T31 = await tender("T31", b3, "72000000", "2023-04-01");
  ids.A31 = await insertContract(db, {
    tenderId: ids.T31,
    winnerId: c1,
    cpv: "72000000",
    awardDate: "2023-06-01",
  });
  return { b1, b2, b3, ids };
}
