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
 * Crafted history (renewal basis version 2: docs/signals.md). Every tender is an open procedure unless said.
 * Expiry: predicted = end - call lead (tender publication to award, at most 180 days); window = predicted +- 45 days,
 * never before the award. Confidence: high when a related tender (listing the division, sharing the CPV class or
 * with a similar title) was published in the 365 days before the award, else low.
 *
 * Buyer B1:
 *   T0 72210000 published 2022-06-01 (no award): related to A1 (class 7221) in the year before A1's award.
 *   A1 on T1 72212000 "Desarrollo y soporte de la sede electrónica", published 2023-01-10, awarded 2023-03-01,
 *      start 2023-04-01, published end 2025-03-31. Lead 50 days: predicted 2025-02-09, window 2024-12-26 ..
 *      2025-03-26, high (T0). T8 (class 7221, 2024-06-01) is before the window: no re-tender. T9 (72500000,
 *      another class, "Desarrollo y soporte de la sede electrónica municipal": the same stems) on 2025-01-20, inside
 *      the window: re-tenders it.
 *   A2 on T2 79400000 published 2023-11-01, awarded 2024-01-20, start 2024-02-15, 12 months: end 2025-02-15
 *      (start + duration). Lead 80: predicted 2024-11-27, window 2024-10-13 .. 2025-01-11, low.
 *   A3 on T3 50300000 published 2024-03-01, awarded 2024-05-20, 24 months, no start: end 2026-05-20 (award +
 *      duration). Lead 80: predicted 2026-03-01, window 2026-01-15 .. 2026-04-15, low.
 *   A4 on T4 48000000, framework, published 2022-10-01, awarded 2022-12-01, start 2023-01-01, 36 months: end
 *      2026-01-01. Lead 61: predicted 2025-11-01, window 2025-09-17 .. 2025-12-16, framework_expiry, low.
 *   A5 on T5 64200000 published 2024-10-01, awarded 2024-12-01, published end 2025-12-31, a 12-month extension
 *      announced: max_end_date 2026-12-31. Lead 61: predicted 2025-10-31, window 2025-09-16 .. 2025-12-15, low.
 *   A6 on T6 30200000: desierto (no winner): nothing.
 *   A7 on T7 30190000, a minor contract, 12 months: nothing (no supplier can bid for a direct award).
 *   T10 72310000 published 2024-02-01, lots 1 and 2 awarded 2024-04-01, start 2024-05-01, 12 and 24 months: one
 *      signal, basis lot 2 (end 2026-05-01). Lead 60: predicted 2026-03-02, window 2026-01-16 .. 2026-04-16, lots 2.
 *   T11 and T12: two tenders published 2024-03-01 under one title (how a register lists one procedure's lots),
 *      60130000, awarded 2024-04-15, start 2024-09-01, 10 months: end 2025-07-01. One signal (key on T11). Lead 45:
 *      predicted 2025-05-17, window 2025-04-02 .. 2025-07-01, high: T13 (60130000, published 2023-09-01, no
 *      award) is related, in the year before the award.
 *   No class of B1 has two competed events: no recurrence.
 * Buyer B2, class 4800, no durations (recurrence only; events are the tenders' publication days):
 *   T20 published 2021-01-10 (3 lots awarded 2021-03-01: one event), T21 2022-01-15 (awarded 2022-03-01), T22
 *   2023-01-20 (awarded 2023-03-15). Each event is a burst of its own.
 *   From 2022-01-15: 2 events, interval 370; predicted 2023-01-15, window 2022-12-16 .. 2023-02-14; a year before it
 *      came 2021-01-10 (2022-01-10 is 5 days off): yearly cycle seen. T22 re-tenders it.
 *   From 2023-01-20: 3 events, intervals 370, 370; predicted 2024-01-20, window 2023-12-21 .. 2024-02-19; cycle
 *      event 2022-01-15; open. Always medium.
 * Buyer B3, class 7200: T30 published 2022-04-01 (awarded 2022-06-01), T31 2023-04-01 (awarded 2023-06-01):
 *   from 2023-04-01: interval 365, predicted 2024-04-01, window 2024-03-02 .. 2024-05-01 (2024 is a leap year).
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
  const tender = (
    ref: string,
    buyerId: number,
    cpv: string,
    publicationDate: string,
    extra: { title?: string; procedureType?: string } = {},
  ) => insertTender(db, { sourceRef: ref, buyerId, cpvAll: [cpv], publicationDate, ...extra });
  ids.T0 = await tender("T0", b1, "72210000", "2022-06-01");
  ids.T1 = await tender("T1", b1, "72212000", "2023-01-10", {
    title: "Desarrollo y soporte de la sede electrónica",
  });
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
  ids.T7 = await tender("T7", b1, "30190000", "2024-02-01", { procedureType: "minor-contract" });
  ids.A7 = await insertContract(db, {
    tenderId: ids.T7,
    winnerId: c1,
    cpv: "30190000",
    awardDate: "2024-02-01",
    startDate: "2024-02-01",
    durationMonths: 12,
  });
  ids.T8 = await tender("T8", b1, "72212000", "2024-06-01", { title: "Otra cosa" });
  ids.T9 = await tender("T9", b1, "72500000", "2025-01-20", {
    title: "Desarrollo y soporte de la sede electrónica municipal",
  });
  ids.T10 = await tender("T10", b1, "72310000", "2024-02-01");
  for (const [lot, months] of [
    ["1", 12],
    ["2", 24],
  ] as const) {
    ids[`A10-${lot}`] = await insertContract(db, {
      tenderId: ids.T10,
      lot,
      winnerId: c1,
      cpv: "72310000",
      awardDate: "2024-04-01",
      startDate: "2024-05-01",
      durationMonths: months,
    });
  }
  ids.T13 = await tender("T13", b1, "60130000", "2023-09-01");
  for (const ref of ["T11", "T12"]) {
    ids[ref] = await tender(ref, b1, "60130000", "2024-03-01", { title: "Transporte escolar ruta costa" });
    ids[`A${ref.slice(1)}`] = await insertContract(db, {
      tenderId: ids[ref] as number,
      winnerId: c1,
      cpv: "60130000",
      awardDate: "2024-04-15",
      startDate: "2024-09-01",
      durationMonths: 10,
    });
  }

  ids.T20 = await tender("T20", b2, "48000000", "2021-01-10");
  for (const lot of ["1", "2", "3"]) {
    await insertContract(db, {
      tenderId: ids.T20,
      lot,
      winnerId: c1,
      cpv: "48000000",
      awardDate: "2021-03-01",
    });
  }
  ids.T21 = await tender("T21", b2, "48000000", "2022-01-15");
  await insertContract(db, { tenderId: ids.T21, winnerId: c1, cpv: "48000000", awardDate: "2022-03-01" });
  ids.T22 = await tender("T22", b2, "48000000", "2023-01-20");
  ids.A22 = await insertContract(db, {
    tenderId: ids.T22,
    winnerId: c1,
    cpv: "48000000",
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
