import { beforeAll, describe, expect, it } from "vitest";
import { refreshStats } from "../../src/analytics/refresh-stats.ts";
import { envelopeSchema } from "../../src/http/envelope.ts";
import { AwardWithTenderSchema, CompanySchema } from "../../src/http/routes/companies/schema.ts";
import { resolveCompanies } from "../../src/ingest/parties.ts";
import { loadCpvLabels } from "../../src/ingest/refdata/load-reference.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { CRAFTED_PREFIX, type CraftedEntry, craftedPage } from "../helpers/crafted-placsp.ts";
import { useTestDb } from "../helpers/db.ts";
import { SHARED_DIR } from "../helpers/engines.ts";
import { AGGREGATED, ingestPage, LIFECYCLE, TWO_ENTRIES } from "../helpers/placsp.ts";

const t = useTestDb();
const log = createLogger("silent");

/*
 * Data: the three real PLACSP fixtures, then one crafted page.
 *
 * Real fixtures (awards):
 *   R1 = 18526649 lot 1: RTVE -> MUXART (B60707239), 2025-12-29, 42500 EUR, CPV 42414100
 *   R2 = 18526649 lot 2: RTVE -> MUXART,             2025-12-29, 47350 EUR, CPV 32000000
 *   R3 = 18526649 lot 3: RTVE -> MUXART,             2025-12-29, 88000 EUR, CPV 32000000
 *   R4 = 17165996 (11 versions; the newest has one award): ISTAC -> REDCA (A38210100), 2025-07-18,
 *        224002.34 EUR, CPV 72313000
 *   (the aggregated-feed fixture has no award; its buyer AMB has none either)
 * Crafted entries (Cádiz, RTVE and ISTAC are the real buyers, matched by NIF):
 *   C1: Cádiz, framework -> "Muxart Produccions SL" / ESB60707239 (= MUXART), 2025-03-10, 300000 EUR ceiling, 72000000
 *   C2: Cádiz -> MUXART, 2025-06-01, 60000 EUR, 72000000
 *   C3: Cádiz -> MUXART, 2025-09-15, 12000 USD, 32000000
 *   C4: RTVE -> "UTE MUXART GAMMA" / U87654323 (a joint venture), 2025-11-20, 150000 EUR, 72000000
 *   C5: ISTAC -> "Datos Abiertos Consultores, S.L." (no id), no date, no value, 72000000
 *   C6: ISTAC -> "DATOS ABIERTOS CONSULTORES SL" / B12345678 (control digit wrong: not an id), 2025-08-01,
 *       5000 EUR, 72313000
 *   C7: Cádiz -> MUXART, 2024-12-01, 50000 EUR, 48000000
 *   C8: ISTAC -> MUXART, 2025-01-20, no value, 30000000
 *   C9: ISTAC -> MUXART, no date, no value, 22000000
 *   C10: Cádiz, desierto (void: no winner), 2025-02-01, 72000000
 */
const CADIZ = { name: "Junta de Gobierno del Ayuntamiento de Cádiz", nif: "P1101200B" };
const RTVE = {
  name: "Dirección de Compras de la Corporación de Radio y Televisión Española S.A.",
  nif: "A84818558",
};
const ISTAC = { name: "Director del Instituto Canario de Estadística (ISTAC)", nif: "Q8550002C" };
const MUXART = { name: "SERVEIS DE PRODUCCIÓ MUXART, S.L.", nif: "B60707239" };
const UTE = { name: "UTE MUXART GAMMA", nif: "U87654323" };

const ENTRIES: CraftedEntry[] = [
  {
    n: 1,
    buyer: CADIZ,
    cpv: "72000000",
    framework: true,
    results: [
      {
        winner: { name: "Muxart Produccions SL", nif: "ESB60707239" },
        awardDate: "2025-03-10",
        value: 300000,
      },
    ],
  },
  {
    n: 2,
    buyer: CADIZ,
    cpv: "72000000",
    results: [{ winner: MUXART, awardDate: "2025-06-01", value: 60000 }],
  },
  {
    n: 3,
    buyer: CADIZ,
    cpv: "32000000",
    results: [{ winner: MUXART, awardDate: "2025-09-15", value: 12000, currency: "USD" }],
  },
  { n: 4, buyer: RTVE, cpv: "72000000", results: [{ winner: UTE, awardDate: "2025-11-20", value: 150000 }] },
  {
    n: 5,
    buyer: ISTAC,
    cpv: "72000000",
    results: [{ winner: { name: "Datos Abiertos Consultores, S.L." } }],
  },
  {
    n: 6,
    buyer: ISTAC,
    cpv: "72313000",
    results: [
      {
        winner: { name: "DATOS ABIERTOS CONSULTORES SL", nif: "B12345678" },
        awardDate: "2025-08-01",
        value: 5000,
      },
    ],
  },
  {
    n: 7,
    buyer: CADIZ,
    cpv: "48000000",
    results: [{ winner: MUXART, awardDate: "2024-12-01", value: 50000 }],
  },
  { n: 8, buyer: ISTAC, cpv: "30000000", results: [{ winner: MUXART, awardDate: "2025-01-20" }] },
  { n: 9, buyer: ISTAC, cpv: "22000000", results: [{ winner: MUXART }] },
  { n: 10, buyer: CADIZ, cpv: "72000000", results: [{ resultCode: "3", awardDate: "2025-02-01" }] },
];

const T1 = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649";
const T1_URL =
  "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=4Mx0Dhk3DIG8ebB%2FXTwy0A%3D%3D";
const crafted = (n: number) => `${CRAFTED_PREFIX}${n}`;
const craftedNotice = (n: number) => ({
  source: "placsp",
  source_ref: crafted(n),
  url: `https://crafted.invalid/detalle/${n}`,
});

const ids = { muxart: 0, redca: 0, ute: 0, gamma: 0, datos: 0, rtve: 0, cadiz: 0, istac: 0 };
/** Award id by the award's source_ref (lot awards: `<tender>#lot=<n>`). */
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
  await ingestPage(t.db, { xml: craftedPage(ENTRIES) });
  // PLACSP never names a joint venture's members; a source that does (TED) goes through the same resolution.
  const party = (name: string, nif: string) => ({ name, nif, rawId: nif, idScheme: "NIF", country: "ES" });
  await resolveCompanies(t.db, [
    {
      ...party(UTE.name, UTE.nif),
      isJointVenture: true,
      members: [party(MUXART.name, MUXART.nif), party("GAMMA SISTEMAS SA", "A58818501")],
    },
  ]);
  await refreshStats({ db: t.db, log });

  const company = "SELECT id FROM companies WHERE nif = $1";
  const buyer = "SELECT id FROM buyers WHERE nif = $1";
  Object.assign(ids, {
    muxart: await idOf(company, "B60707239"),
    redca: await idOf(company, "A38210100"),
    ute: await idOf(company, "U87654323"),
    gamma: await idOf(company, "A58818501"),
    datos: await idOf("SELECT id FROM companies WHERE name_norm = $1", "datos abiertos consultores"),
    rtve: await idOf(buyer, RTVE.nif),
    cadiz: await idOf(buyer, CADIZ.nif),
    istac: await idOf(buyer, ISTAC.nif),
  });
  const { rows } = await t.db.query<{ id: number; source_ref: string }>("SELECT id, source_ref FROM awards");
  for (const row of rows) {
    awardIds.set(row.source_ref, row.id);
  }
});

async function paidGet(endpoint: string, path: string) {
  const { app } = buildTestApp({ db: t.db });
  return getJson(app, path, { "x-payment": await devToken(app, endpoint) });
}
const getCompany = (id: number | string) => paidGet("GET /v1/companies/:id", `/v1/companies/${id}`);
const getAwards = (id: number | string, query = "") =>
  paidGet("GET /v1/companies/:id/awards", `/v1/companies/${id}/awards${query}`);

const CEILING_LIST_CAVEAT =
  "Framework agreement award values are ceilings (maximum spend allowed), not amounts spent; never sum them as spend.";
const ceilingsCaveat = (n: string) =>
  "Framework agreement award values are ceilings (maximum spend allowed), not amounts spent, so they are " +
  `excluded from total_awarded_value and every total_value (${n} left out).`;

describe("GET /v1/companies/{id}", () => {
  it("serves the Company with its aggregates, computed by hand below", async () => {
    const { res, body } = await getCompany(ids.muxart);
    expect(res.status).toBe(200);
    expect(envelopeSchema(CompanySchema).safeParse(body).success).toBe(true);
    const label = { label_en: null, label_es: null }; // CPV table not loaded yet
    expect(body.data).toEqual({
      id: ids.muxart,
      source_ref: null, // PLACSP gives companies no reference of their own
      name: "SERVEIS DE PRODUCCIÓ MUXART, S.L.", // the first name seen
      country: "ES",
      nif: "B60707239",
      // C1 published "Muxart Produccions SL" with ESB60707239, which normalizes to the same NIF. Code-point
      // order: "M" < "S".
      aliases: ["Muxart Produccions SL", "SERVEIS DE PRODUCCIÓ MUXART, S.L."],
      identifiers: [{ scheme: "nif", value: "B60707239" }],
      stats: {
        // R1, R2, R3, C1, C2, C3, C7, C8, C9 (C4 is the joint venture's win, not its members')
        wins: 9,
        // R1 42500 + R2 47350 + R3 88000 + C2 60000 + C7 50000 = 287850
        // (C1 is a framework ceiling, C3 is in USD, C8 and C9 have no value)
        total_awarded_value: 287850,
        top_cpvs: [
          // R2 + R3 + C3 = 3 wins; 47350 + 88000 = 135350 (C3 in USD left out)
          { code: "32000000", ...label, wins: 3, total_value: 135350 },
          // C1 + C2 = 2 wins; 60000 (C1 ceiling left out)
          { code: "72000000", ...label, wins: 2, total_value: 60000 },
          // one win each: by total desc (50000 > 42500), unknown totals last, then code asc (22 < 30)
          { code: "48000000", ...label, wins: 1, total_value: 50000 },
          { code: "42414100", ...label, wins: 1, total_value: 42500 },
          { code: "22000000", ...label, wins: 1, total_value: null },
          { code: "30000000", ...label, wins: 1, total_value: null },
        ],
        top_buyers: [
          // Cádiz: C1, C2, C3, C7 = 4 wins; 60000 + 50000 = 110000
          { id: ids.cadiz, name: CADIZ.name, wins: 4, total_value: 110000 },
          // RTVE: R1, R2, R3 = 3 wins; 42500 + 47350 + 88000 = 177850 (fewer wins, so after Cádiz)
          { id: ids.rtve, name: RTVE.name, wins: 3, total_value: 177850 },
          // ISTAC: C8, C9 = 2 wins, no value known
          { id: ids.istac, name: ISTAC.name, wins: 2, total_value: null },
        ],
      },
      is_joint_venture: false,
      members: [],
      member_of: [{ id: ids.ute, name: "UTE MUXART GAMMA" }],
    });
    expect(body.meta).toMatchObject({
      paid: true,
      price_usd: "0.05",
      caveats: [
        ceilingsCaveat("1 ceiling"),
        "Only EUR amounts are added up in total_awarded_value and every total_value: 1 award value in other " +
          "currencies left out (never converted).",
      ],
      // The notices of its newest awards, each once, newest first: 18526649 (R1-R3, 2025-12-29), C3, C2, C1, C8,
      // C7, then C9 (no date)
      provenance: [
        { source: "placsp", source_ref: T1, url: T1_URL },
        craftedNotice(3),
        craftedNotice(2),
        craftedNotice(1),
        craftedNotice(8),
        craftedNotice(7),
        craftedNotice(9),
      ],
    });
  });

  it("matches a party without a valid tax id on its exact normalized name only; the bad id is no identifier", async () => {
    const { res, body } = await getCompany(ids.datos);
    expect(res.status).toBe(200);
    expect(body.data).toEqual({
      id: ids.datos,
      source_ref: null,
      name: "Datos Abiertos Consultores, S.L.",
      country: null,
      nif: null, // B12345678 fails its control digit: kept on the award, never an identifier
      aliases: ["DATOS ABIERTOS CONSULTORES SL", "Datos Abiertos Consultores, S.L."], // "A" < "a"
      identifiers: [],
      stats: {
        wins: 2, // C5, C6: both spellings normalize to "datos abiertos consultores"
        total_awarded_value: 5000, // C6; C5 has no value
        top_cpvs: [
          // one win each; the known total first
          { code: "72313000", label_en: null, label_es: null, wins: 1, total_value: 5000 },
          { code: "72000000", label_en: null, label_es: null, wins: 1, total_value: null },
        ],
        top_buyers: [{ id: ids.istac, name: ISTAC.name, wins: 2, total_value: 5000 }],
      },
      is_joint_venture: false,
      members: [],
      member_of: [],
    });
    // No ceilings: the rule is still stated, with 0; no foreign currency: no second caveat.
    expect((body.meta as { caveats: string[] }).caveats).toEqual([ceilingsCaveat("0 ceilings")]);
  });

  it("keeps a joint venture as its own company, linked to its members, whose wins stay its own", async () => {
    const ute = await getCompany(ids.ute);
    expect(ute.body.data).toMatchObject({
      name: "UTE MUXART GAMMA",
      nif: "U87654323",
      identifiers: [{ scheme: "nif", value: "U87654323" }],
      is_joint_venture: true,
      members: [
        { id: ids.muxart, name: MUXART.name },
        { id: ids.gamma, name: "GAMMA SISTEMAS SA" },
      ].sort((a, b) => a.id - b.id),
      member_of: [],
      stats: {
        wins: 1, // C4
        total_awarded_value: 150000,
        top_cpvs: [{ code: "72000000", label_en: null, label_es: null, wins: 1, total_value: 150000 }],
        top_buyers: [{ id: ids.rtve, name: RTVE.name, wins: 1, total_value: 150000 }],
      },
    });
    expect(ute.body.meta).toMatchObject({ provenance: [craftedNotice(4)] });

    // A member that never won anything itself: zero wins, unknown total, empty lists, no notices.
    const gamma = await getCompany(ids.gamma);
    expect(gamma.res.status).toBe(200);
    expect(gamma.body.data).toMatchObject({
      name: "GAMMA SISTEMAS SA",
      stats: { wins: 0, total_awarded_value: null, top_cpvs: [], top_buyers: [] },
      is_joint_venture: false,
      member_of: [{ id: ids.ute, name: "UTE MUXART GAMMA" }],
    });
    expect(gamma.body.meta).toMatchObject({ provenance: [], caveats: [ceilingsCaveat("0 ceilings")] });
  });

  it("serves a company seen only in the real fixtures, its decimals intact", async () => {
    const { body } = await getCompany(ids.redca);
    expect(body.data).toMatchObject({
      name: "REDCA S.A.",
      aliases: ["REDCA S.A."],
      stats: {
        wins: 1, // R4: the newest of the 11 versions of 17165996 keeps one award
        total_awarded_value: 224002.34,
        top_cpvs: [{ code: "72313000", label_en: null, label_es: null, wins: 1, total_value: 224002.34 }],
        top_buyers: [{ id: ids.istac, name: ISTAC.name, wins: 1, total_value: 224002.34 }],
      },
    });
  });

  it("answers 404 not_found with a hint for an id that does not exist", async () => {
    const { res, body } = await getCompany(987654);
    expect(res.status).toBe(404);
    expect(body).toEqual({
      error: {
        code: "not_found",
        message: "No company with id 987654.",
        hint: "Company ids come from GET /v1/search (field company.id) and from winner.id on awards.",
      },
    });
  });

  it("joins CPV labels when they are read: null before the CPV table is loaded, filled after", async () => {
    await loadCpvLabels(t.db, `${SHARED_DIR}data/cpv/cpv2008.csv`);
    const { body } = await getCompany(ids.muxart);
    const top = (body.data as { stats: { top_cpvs: { code: string; label_en: string | null }[] } }).stats
      .top_cpvs;
    expect(top[0]).toEqual({
      code: "32000000",
      label_en: "Radio, television, communication, telecommunication and related equipment",
      label_es: "Equipos de radio, televisión, comunicaciones y telecomunicaciones y equipos conexos",
      wins: 3,
      total_value: 135350,
    });
    expect(top.map((c) => c.label_en)).toEqual([
      "Radio, television, communication, telecommunication and related equipment",
      "IT services: consulting, software development, Internet and support",
      "Software package and information systems",
      "Cranes",
      "Printed matter and related products",
      "Office and computing machinery, equipment and supplies except furniture and software packages",
    ]);
  });
});

describe("GET /v1/companies/{id}/awards", () => {
  /** MUXART's 9 awards, newest first; the three awards of 2025-12-29 by id descending. */
  function expectedOrder(): number[] {
    const sameDay = [`${T1}#lot=1`, `${T1}#lot=2`, `${T1}#lot=3`].map(awardId).sort((a, b) => b - a);
    return [
      ...sameDay, // 2025-12-29
      awardId(crafted(3)), // 2025-09-15
      awardId(crafted(2)), // 2025-06-01
      awardId(crafted(1)), // 2025-03-10
      awardId(crafted(8)), // 2025-01-20
      awardId(crafted(7)), // 2024-12-01
      awardId(crafted(9)), // no date: last
    ];
  }

  it("pages a company's awards newest first, with tender context and provenance", async () => {
    const { res, body } = await getAwards(ids.muxart);
    expect(res.status).toBe(200);
    expect(envelopeSchema(AwardWithTenderSchema.array()).safeParse(body).success).toBe(true);
    const data = body.data as { id: number }[];
    expect(data.map((a) => a.id)).toEqual(expectedOrder());
    // Default page 1 of size 20; the page holds C1, a framework award: the ceiling caveat.
    expect(body.meta).toMatchObject({ page: 1, total: 9, price_usd: "0.05", caveats: [CEILING_LIST_CAVEAT] });
    expect((body.meta as { provenance: unknown[] }).provenance).toHaveLength(7); // 9 awards on 7 notices

    const lot3 = data[expectedOrder().indexOf(awardId(`${T1}#lot=3`))];
    expect(lot3).toEqual({
      id: awardId(`${T1}#lot=3`),
      tender_id: expect.any(Number),
      source_ref: `${T1}#lot=3`,
      award_date: "2025-12-29",
      lot: "3",
      winner: { id: ids.muxart, name: MUXART.name },
      value: 88000,
      currency: "EUR",
      bidders_count: expect.any(Number),
      framework: false,
      duration_months: expect.any(Number),
      start_date: null,
      start_date_kind: null,
      end_date: null,
      tender: {
        id: (lot3 as { tender_id: number } | undefined)?.tender_id,
        source_ref: T1,
        title: "Alquiler equipos filmación- Benidorm Fest 2026",
        cpv_main: "32000000",
        publication_date: "2025-12-04",
        buyer: { id: ids.rtve, name: RTVE.name },
      },
    });
    const c1 = data.find((a) => a.id === awardId(crafted(1)));
    expect(c1).toMatchObject({ framework: true, value: 300000, tender: { buyer: { id: ids.cadiz } } });
  });

  it("walks every page of every size without repeating or missing a row", async () => {
    const all = expectedOrder();
    for (const size of [1, 2, 3]) {
      const seen: number[] = [];
      for (let page = 1; ; page++) {
        const { body } = await getAwards(ids.muxart, `?page=${page}&size=${size}`);
        expect(body.meta).toMatchObject({ page, total: 9 });
        const rows = body.data as { id: number }[];
        if (rows.length === 0) {
          expect(page).toBe(Math.ceil(9 / size) + 1); // the first page past the end is empty, not an error
          break;
        }
        expect(rows.length).toBe(Math.min(size, 9 - seen.length));
        seen.push(...rows.map((r) => r.id));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(all);
    }
  });

  it("answers a page beyond the last with an empty list and the real total", async () => {
    const { res, body } = await getAwards(ids.muxart, "?page=1000&size=100");
    expect(res.status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ page: 1000, total: 9, provenance: [] });
    expect(body.meta).not.toHaveProperty("caveats");
  });

  it("states no caveat on a page without framework values", async () => {
    const { body } = await getAwards(ids.muxart, "?page=1&size=3"); // R3, R2, R1
    expect(body.meta).not.toHaveProperty("caveats");
    expect(body.meta).toMatchObject({ provenance: [{ source: "placsp", source_ref: T1, url: T1_URL }] });
  });

  it("answers an empty list for a company without wins, and 404 for an unknown company", async () => {
    const gamma = await getAwards(ids.gamma);
    expect(gamma.res.status).toBe(200);
    expect(gamma.body.data).toEqual([]);
    expect(gamma.body.meta).toMatchObject({ page: 1, total: 0 });

    const { res, body } = await getAwards(987654);
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ error: { code: "not_found", message: "No company with id 987654." } });
  });
});

describe("bad input", () => {
  it.each([
    ["/v1/companies/0", "id"],
    ["/v1/companies/-1", "id"],
    ["/v1/companies/abc", "id"],
    ["/v1/companies/1.5", "id"],
    ["/v1/companies/0/awards", "id"],
    ["/v1/companies/-1/awards", "id"],
    ["/v1/companies/abc/awards", "id"],
    ["/v1/companies/1.5/awards", "id"],
    ["/v1/companies/1/awards?size=0", "size"],
    ["/v1/companies/1/awards?size=101", "size"],
    ["/v1/companies/1/awards?page=0", "page"],
    ["/v1/companies/1/awards?page=-2", "page"],
    ["/v1/companies/1/awards?size=abc", "size"],
  ])("%s -> 400 invalid_query naming %s, before any payment", async (path, name) => {
    const { app: probe } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(probe, path); // no payment: validation answers first, free of charge
    expect(res.status).toBe(400);
    const error = (body as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain(`parameter "${name}"`);
    expect(error.hint.length).toBeGreaterThan(0);
  });

  it("asks for payment (402) once the input is valid", async () => {
    const { app: probe } = buildTestApp({ db: t.db });
    expect((await probe.request(`/v1/companies/${ids.muxart}`)).status).toBe(402);
    expect((await probe.request(`/v1/companies/${ids.muxart}/awards`)).status).toBe(402);
  });
});
