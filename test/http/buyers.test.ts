import { beforeAll, describe, expect, it } from "vitest";
import { refreshStats } from "../../src/analytics/refresh-stats.ts";
import { envelopeSchema } from "../../src/http/envelope.ts";
import { BuyerSchema } from "../../src/http/routes/buyers/schema.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { CRAFTED_PREFIX, type CraftedEntry, craftedPage } from "../helpers/crafted-placsp.ts";
import { useTestDb } from "../helpers/db.ts";
import { AGGREGATED, ingestPage, LIFECYCLE, TWO_ENTRIES } from "../helpers/placsp.ts";

const t = useTestDb();
const log = createLogger("silent");

/*
 * Data: the three real PLACSP fixtures, then crafted pages.
 *
 * Real: RTVE has 3 awards (tender 18526649, lots 1-3, all 2025-12-29, all to MUXART: 42500 + 47350 + 88000
 * EUR, CPVs 42414100, 32000000, 32000000). Cádiz (2entries fixture) and AMB (aggregated feed) have no award.
 *
 * Crafted buyer "Diputación de Prueba" (P0800000B), one award per entry:
 *   D1  72000000 2024-01-10 S1 100000
 *   D2  72200000 2024-03-10 S1  50000
 *   D3  72500000 2024-07-10 S2  80000 framework: a ceiling
 *   D4  48000000 2024-02-01 S2  30000
 *   D5  48000000 2024-02-01 S3  20000
 *   D6  48000000 2024-12-01 S4  10000
 *   D7  72000000 2024-07-10 S3  40000
 *   D8  72000000 2025-01-10 S1  (no value)
 *   D9  30000000 (no date)  desierto: no winner
 *   D10 30000000 2025-02-01 S4   5000
 *   D11 72000000 2025-03-10 S2   1000
 * Crafted buyer "Consorcio de Prueba" (S2833002E): 55 awards to S1, 1000 EUR each, CPV 72000000, one per day
 * from 2023-01-01 to 2023-02-24.
 * Crafted buyer "Entidad Desierta" (Q2826000H): one void award, 72000000, 2025-05-05.
 */
const DIP = { name: "Diputación de Prueba", nif: "P0800000B", platformId: "99000001", orgType: "3" };
const LIMIT = { name: "Consorcio de Prueba", nif: "S2833002E", platformId: "99000002" };
const VOID = { name: "Entidad Desierta", nif: "Q2826000H" };
const S1 = { name: "Acme Sistemas SL", nif: "B12345674" };
const S2 = { name: "Beta Datos SA", nif: "A58818501" };
const S3 = { name: "Gamma Fundación", nif: "G28282812" };
const S4 = { name: "Delta Cooperativa", nif: "F0012345E" };

const award = (
  n: number,
  cpv: string,
  date: string | null,
  winner: typeof S1 | null,
  value: number | null,
) => ({
  n,
  buyer: DIP,
  cpv,
  results: [winner ? { winner, awardDate: date, value } : { resultCode: "3", awardDate: date }],
});
const DIP_ENTRIES: CraftedEntry[] = [
  award(1, "72000000", "2024-01-10", S1, 100000),
  award(2, "72200000", "2024-03-10", S1, 50000),
  { ...award(3, "72500000", "2024-07-10", S2, 80000), framework: true },
  award(4, "48000000", "2024-02-01", S2, 30000),
  award(5, "48000000", "2024-02-01", S3, 20000),
  award(6, "48000000", "2024-12-01", S4, 10000),
  award(7, "72000000", "2024-07-10", S3, 40000),
  award(8, "72000000", "2025-01-10", S1, null),
  award(9, "30000000", null, null, null),
  award(10, "30000000", "2025-02-01", S4, 5000),
  award(11, "72000000", "2025-03-10", S2, 1000),
];
const day = (i: number) => new Date(Date.UTC(2023, 0, 1 + i)).toISOString().slice(0, 10);
const LIMIT_ENTRIES: CraftedEntry[] = Array.from({ length: 55 }, (_, i) => ({
  n: 200 + i,
  buyer: LIMIT,
  cpv: "72000000",
  results: [{ winner: S1, awardDate: day(i), value: 1000 }],
}));
const VOID_ENTRIES: CraftedEntry[] = [
  { n: 300, buyer: VOID, cpv: "72000000", results: [{ resultCode: "3", awardDate: "2025-05-05" }] },
];

const T1 = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649";
const T1_URL =
  "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=4Mx0Dhk3DIG8ebB%2FXTwy0A%3D%3D";
const crafted = (n: number) => `${CRAFTED_PREFIX}${n}`;

const ids = { rtve: 0, cadiz: 0, amb: 0, dip: 0, limit: 0, void: 0, muxart: 0, s1: 0, s2: 0, s3: 0, s4: 0 };
const awardIds = new Map<string, number>();
const awardId = (ref: string): number => awardIds.get(ref) ?? Number.NaN;

async function idOf(sql: string, param: string): Promise<number> {
  const { rows } = await t.db.query<{ id: number }>(sql, [param]);
  return rows[0]?.id ?? Number.NaN;
}

beforeAll(async () => {
  for (const file of [TWO_ENTRIES, LIFECYCLE, AGGREGATED]) {
    await ingestPage(t.db, { file });
  }
  await ingestPage(t.db, { xml: craftedPage([...DIP_ENTRIES, ...LIMIT_ENTRIES, ...VOID_ENTRIES]) });
  await refreshStats({ db: t.db, log });
  const buyer = "SELECT id FROM buyers WHERE nif = $1";
  const company = "SELECT id FROM companies WHERE nif = $1";
  Object.assign(ids, {
    rtve: await idOf(buyer, "A84818558"),
    cadiz: await idOf(buyer, "P1101200B"),
    amb: await idOf("SELECT id FROM buyers WHERE platform_id = $1", "28027859"),
    dip: await idOf(buyer, DIP.nif),
    limit: await idOf(buyer, LIMIT.nif),
    void: await idOf(buyer, VOID.nif),
    muxart: await idOf(company, "B60707239"),
    s1: await idOf(company, S1.nif),
    s2: await idOf(company, S2.nif),
    s3: await idOf(company, S3.nif),
    s4: await idOf(company, S4.nif),
  });
  const { rows } = await t.db.query<{ id: number; source_ref: string }>("SELECT id, source_ref FROM awards");
  for (const row of rows) {
    awardIds.set(row.source_ref, row.id);
  }
});

async function getHistory(id: number | string) {
  const { app } = buildTestApp({ db: t.db });
  return getJson(app, `/v1/buyers/${id}/history`, {
    "x-payment": await devToken(app, "GET /v1/buyers/:id/history"),
  });
}

interface BuyerBody {
  awards: { id: number; award_date: string | null; tender: { source_ref: string } }[];
  [field: string]: unknown;
}

const ceilingsCaveat = (n: string) =>
  "Framework agreement award values are ceilings (maximum spend allowed), not amounts spent, so they are " +
  `excluded from top3_share_by_value (${n} left out).`;

describe("GET /v1/buyers/{id}/history", () => {
  it("computes concentration and recurrence as worked out by hand", async () => {
    const { res, body } = await getHistory(ids.dip);
    expect(res.status).toBe(200);
    expect(envelopeSchema(BuyerSchema).safeParse(body).success).toBe(true);
    const { awards, ...rest } = body.data as BuyerBody;
    expect(rest).toEqual({
      id: ids.dip,
      source_ref: "99000001", // its PLACSP platform id
      name: "Diputación de Prueba",
      country: null,
      nuts: null,
      org_type: "3",
      awards_total: 11, // D1-D11, the void D9 included
      // 10 awards have a winner: S1 3 (D1 D2 D8), S2 3 (D3 D4 D11), S3 2 (D5 D7), S4 2 (D6 D10).
      // Top 3 by count: 3 + 3 + 2 = 8 (which of the two 2s does not matter) -> 8 / 10 = 0.8
      supplier_concentration: 0.8,
      top3_share_by_count: 0.8,
      // EUR values of awards with a winner, the ceiling D3 and the unknown D8 left out:
      // 100000 + 50000 + 30000 + 20000 + 10000 + 40000 + 5000 + 1000 = 256000.
      // By supplier: S1 150000, S3 60000, S2 31000, S4 15000 -> top 3 = 241000 / 256000 = 0.94140625 -> 0.9414
      top3_share_by_value: 0.9414,
      recurrence: [
        // 30: D10 is the only dated award (D9 has no date) -> null
        { cpv: "30", median_months: null },
        // 48: distinct dates 2024-02-01 (D4, D5) and 2024-12-01 (D6): one gap of 304 days (2024 is a leap
        // year: 29+31+30+31+30+31+31+30+31+30) -> 304 / 30.4375 = 9.9877 -> 9.99
        { cpv: "48", median_months: 9.99 },
        // 72: distinct dates 2024-01-10, 2024-03-10, 2024-07-10 (D3, D7), 2025-01-10, 2025-03-10
        // gaps 60, 122, 184, 59 days -> sorted 59 60 122 184 -> median (60 + 122) / 2 = 91 days
        // -> 91 / 30.4375 = 2.9897 -> 2.99
        { cpv: "72", median_months: 2.99 },
      ],
    });
    // Newest first, unknown date last; same-day awards by id descending.
    const desc = (...ns: number[]) => ns.map((n) => awardId(crafted(n))).sort((a, b) => b - a);
    expect(awards.map((a) => a.id)).toEqual([
      awardId(crafted(11)), // 2025-03-10
      awardId(crafted(10)), // 2025-02-01
      awardId(crafted(8)), // 2025-01-10
      awardId(crafted(6)), // 2024-12-01
      ...desc(3, 7), // 2024-07-10
      awardId(crafted(2)), // 2024-03-10
      ...desc(4, 5), // 2024-02-01
      awardId(crafted(1)), // 2024-01-10
      awardId(crafted(9)), // no date
    ]);
    expect(awards.find((a) => a.id === awardId(crafted(3)))).toMatchObject({
      framework: true,
      value: 80000,
      winner: { id: ids.s2, name: "Beta Datos SA" },
      tender: {
        source_ref: crafted(3),
        title: "Contrato 3",
        cpv_main: "72500000",
        buyer: { id: ids.dip, name: "Diputación de Prueba" },
      },
    });
    expect(awards.find((a) => a.id === awardId(crafted(9)))).toMatchObject({ winner: null, value: null });
    expect(body.meta).toMatchObject({
      paid: true,
      price_usd: "0.05",
      caveats: [ceilingsCaveat("1 ceiling")],
    });
    // One notice per listed award (each crafted tender has one award), in list order.
    const provenance = (body.meta as { provenance: { source_ref: string; url: string }[] }).provenance;
    expect(provenance.map((p) => p.source_ref)).toEqual(awards.map((a) => a.tender.source_ref));
    expect(provenance[0]).toEqual({
      source: "placsp",
      source_ref: crafted(11),
      url: "https://crafted.invalid/detalle/11",
    });
  });

  it("serves a real buyer from the fixtures: one supplier, so concentration 1.0", async () => {
    const { body } = await getHistory(ids.rtve);
    const { awards, ...rest } = body.data as BuyerBody;
    expect(rest).toEqual({
      id: ids.rtve,
      source_ref: "50485810086581",
      name: "Dirección de Compras de la Corporación de Radio y Televisión Española S.A.",
      country: "ES",
      nuts: null,
      org_type: "6",
      awards_total: 3,
      supplier_concentration: 1, // MUXART won all 3
      top3_share_by_count: 1,
      top3_share_by_value: 1, // (42500 + 47350 + 88000) / 177850
      // one award date per division: no gap to take a median of
      recurrence: [
        { cpv: "32", median_months: null },
        { cpv: "42", median_months: null },
      ],
    });
    const lots = [`${T1}#lot=1`, `${T1}#lot=2`, `${T1}#lot=3`].map(awardId).sort((a, b) => b - a);
    expect(awards.map((a) => a.id)).toEqual(lots);
    expect(awards[0]).toMatchObject({
      award_date: "2025-12-29",
      winner: { id: ids.muxart, name: "SERVEIS DE PRODUCCIÓ MUXART, S.L." },
      tender: {
        source_ref: T1,
        title: "Alquiler equipos filmación- Benidorm Fest 2026",
        cpv_main: "32000000",
        publication_date: "2025-12-04",
        buyer: { id: ids.rtve },
      },
    });
    expect(body.meta).toMatchObject({
      provenance: [{ source: "placsp", source_ref: T1, url: T1_URL }],
      caveats: [ceilingsCaveat("0 ceilings")],
    });
  });

  it("lists the newest 50 awards and counts them all", async () => {
    const { body } = await getHistory(ids.limit);
    const data = body.data as BuyerBody;
    expect(data.awards_total).toBe(55);
    expect(data.awards).toHaveLength(50);
    // 2023-01-01 + 54 days = 2023-02-24 is the newest; the 50th is 2023-01-06; 01-01 .. 01-05 are left out
    expect(data.awards[0]?.award_date).toBe("2023-02-24");
    expect(data.awards[49]?.award_date).toBe("2023-01-06");
    expect(data.top3_share_by_count).toBe(1);
    expect(data.top3_share_by_value).toBe(1);
    // every gap is 1 day: 1 / 30.4375 = 0.0329 -> 0.03
    expect(data.recurrence).toEqual([{ cpv: "72", median_months: 0.03 }]);
    expect((body.meta as { provenance: unknown[] }).provenance).toHaveLength(50);
  });

  it("answers null shares when no award has a winner", async () => {
    const { body } = await getHistory(ids.void);
    expect(body.data).toMatchObject({
      awards_total: 1,
      supplier_concentration: null,
      top3_share_by_count: null,
      top3_share_by_value: null,
      recurrence: [{ cpv: "72", median_months: null }],
    });
    expect((body.data as BuyerBody).awards).toHaveLength(1);
  });

  it("answers a buyer without awards with zeros, nulls and empty lists", async () => {
    const cadiz = await getHistory(ids.cadiz);
    expect(cadiz.res.status).toBe(200);
    expect(cadiz.body.data).toEqual({
      id: ids.cadiz,
      source_ref: "31056300149390",
      name: "Junta de Gobierno del Ayuntamiento de Cádiz",
      country: "ES",
      nuts: null,
      org_type: "3",
      awards: [],
      awards_total: 0,
      supplier_concentration: null,
      top3_share_by_count: null,
      top3_share_by_value: null,
      recurrence: [],
    });
    expect(cadiz.body.meta).toMatchObject({ provenance: [], caveats: [ceilingsCaveat("0 ceilings")] });

    // The aggregated feed's buyer: no NIF, no country; known by its platform id (ID_OC_PLAT).
    const amb = await getHistory(ids.amb);
    expect(amb.body.data).toMatchObject({
      name: "Àrea Metropolitana de Barcelona",
      source_ref: "28027859",
      country: null,
      org_type: null,
      awards_total: 0,
    });
  });

  it("answers 404 not_found with a hint for an id that does not exist", async () => {
    const { res, body } = await getHistory(987654);
    expect(res.status).toBe(404);
    expect(body).toEqual({
      error: {
        code: "not_found",
        message: "No buyer with id 987654.",
        hint: "Buyer ids come from GET /v1/search (field buyer.id) and from tender.buyer.id on awards.",
      },
    });
  });

  it.each(["0", "-1", "abc", "1.5"])(
    "id=%s -> 400 invalid_query naming id, before any payment",
    async (id) => {
      const { app } = buildTestApp({ db: t.db });
      const { res, body } = await getJson(app, `/v1/buyers/${id}/history`);
      expect(res.status).toBe(400);
      const error = (body as { error: { code: string; message: string; hint: string } }).error;
      expect(error.code).toBe("invalid_query");
      expect(error.message).toContain('path parameter "id"');
      expect(error.hint.length).toBeGreaterThan(0);
    },
  );

  it("asks for payment (402) once the input is valid", async () => {
    const { app } = buildTestApp({ db: t.db });
    expect((await app.request(`/v1/buyers/${ids.dip}/history`)).status).toBe(402);
  });
});
