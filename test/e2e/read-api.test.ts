import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/engines.ts";
import { PLACSP_FIXTURES } from "../helpers/placsp.ts";
import { runEntry, type Spawned, spawnServer, waitForListening } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

/**
 * The read API end to end: the real fixtures ingested by the CLI (whose run ends by refreshing the company and
 * buyer aggregates), then the real server process answering over HTTP, paid with dev tokens.
 *
 * Fixture facts used below: MUXART (B60707239) won lots 1-3 of 18526649 from RTVE on 2025-12-29: 42500 EUR
 * (CPV 42414100), 47350 and 88000 EUR (CPV 32000000). ISTAC (Q8550002C) awarded 17165996 to REDCA
 * (A38210100) on 2025-07-18 for 224002.34 EUR (CPV 72313000).
 */
describe("read API over HTTP after a CLI ingest", () => {
  let database: ServerDatabase;
  let server: Spawned;
  let base: string;
  const ids = { muxart: 0, rtve: 0, istac: 0 };

  beforeAll(async () => {
    database = await createServerDatabase();
    await database.withDb(async () => {}); // PGlite: creates and migrates the directory
    const ingest = await runEntry("src/cli.ts", ["ingest", "placsp", "--source", PLACSP_FIXTURES], {
      ...database.env,
      LOG_LEVEL: "warn",
    });
    expect(ingest.code, ingest.stderr).toBe(0);
    await database.withDb(async (db) => {
      const id = async (sql: string, param: string) =>
        (await db.query<{ id: number }>(sql, [param])).rows[0]?.id ?? Number.NaN;
      ids.muxart = await id("SELECT id FROM companies WHERE nif = $1", "B60707239");
      ids.rtve = await id("SELECT id FROM buyers WHERE nif = $1", "A84818558");
      ids.istac = await id("SELECT id FROM buyers WHERE nif = $1", "Q8550002C");
    });
    server = spawnServer({
      ...database.env,
      CPV_LABELS: `${SHARED_DIR}data/cpv/cpv2008.csv`,
      NUTS_LABELS: `${SHARED_DIR}data/nuts/nuts.csv`,
    });
    base = `http://127.0.0.1:${await waitForListening(server)}`;
  });

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await database?.destroy();
  });

  async function paid(endpoint: string, path: string) {
    const faucet = await fetch(`${base}/v1/dev-faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint }),
    });
    const { token } = (await faucet.json()) as { token: string };
    const res = await fetch(`${base}${path}`, { headers: { "X-PAYMENT": token } });
    return {
      status: res.status,
      body: (await res.json()) as { data: Record<string, unknown>; meta: Record<string, unknown> },
    };
  }

  it("GET /v1/companies/{id}: the aggregates the ingest run materialized, with CPV labels", async () => {
    const { status, body } = await paid("GET /v1/companies/:id", `/v1/companies/${ids.muxart}`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      id: ids.muxart,
      nif: "B60707239",
      identifiers: [{ scheme: "nif", value: "B60707239" }],
      stats: {
        wins: 3,
        total_awarded_value: 177850, // 42500 + 47350 + 88000
        top_cpvs: [
          {
            code: "32000000", // 2 wins: 47350 + 88000
            label_en: "Radio, television, communication, telecommunication and related equipment",
            wins: 2,
            total_value: 135350,
          },
          { code: "42414100", label_en: "Cranes", label_es: "Grúas", wins: 1, total_value: 42500 },
        ],
        top_buyers: [{ id: ids.rtve, wins: 3, total_value: 177850 }],
      },
      is_joint_venture: false,
    });
    expect(body.meta).toMatchObject({
      paid: true,
      price_usd: "0.05",
      caveats: [expect.stringContaining("0 ceilings")],
    });
  });

  it("GET /v1/companies/{id}/awards: pages newest first with tender context", async () => {
    const first = await paid("GET /v1/companies/:id/awards", `/v1/companies/${ids.muxart}/awards?size=2`);
    const second = await paid(
      "GET /v1/companies/:id/awards",
      `/v1/companies/${ids.muxart}/awards?size=2&page=2`,
    );
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({ page: 1, total: 3 });
    expect(second.body.meta).toMatchObject({ page: 2, total: 3 });
    const lots = [
      ...(first.body.data as unknown as { lot: string }[]),
      ...(second.body.data as unknown as { lot: string }[]),
    ];
    // one award date for all three: id descending, which is lot 3, 2, 1 as ingested
    expect(lots.map((a) => a.lot)).toEqual(["3", "2", "1"]);
    expect(lots[0]).toMatchObject({
      award_date: "2025-12-29",
      value: 88000,
      tender: { cpv_main: "32000000", publication_date: "2025-12-04", buyer: { id: ids.rtve } },
    });
  });

  it("GET /v1/buyers/{id}/history: concentration and recurrence of a real buyer", async () => {
    const { status, body } = await paid("GET /v1/buyers/:id/history", `/v1/buyers/${ids.istac}/history`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      id: ids.istac,
      name: "Director del Instituto Canario de Estadística (ISTAC)",
      source_ref: "21054580149218",
      awards_total: 1,
      supplier_concentration: 1, // one award, one supplier
      top3_share_by_count: 1,
      top3_share_by_value: 1,
      recurrence: [{ cpv: "72", median_months: null }], // one dated award: no gap
      awards: [{ award_date: "2025-07-18", value: 224002.34, winner: { name: "REDCA S.A." } }],
    });
  });

  it("finds at once what the CLI ingested: the search relation was filled in the ingest's transactions", async () => {
    // 4 tenders (one appears in two feeds' files but is one procedure) and 4 awards, counted exactly.
    const { status, body } = await paid("GET /v1/search", "/v1/search?type=tender");
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ total: 4, total_exact: true });
    const awards = await paid("GET /v1/search", "/v1/search");
    expect(awards.body.meta).toMatchObject({ total: 4, total_exact: true });
  });

  it("GET /v1/search: full text, fragments, kinds and paging over the ingested fixtures", async () => {
    type Rows = { id: number; kind: string; company: { name: string } | null; value: number | null }[];
    const search = async (query: string) => {
      const { status, body } = await paid("GET /v1/search", `/v1/search?${query}`);
      expect(status, query).toBe(200);
      return { rows: body.data as unknown as Rows, total: body.meta.total as number };
    };
    // Stemmed, accent- and case-free: "FILMACIONES" finds "filmación" (the three RTVE lots).
    expect((await search("q=FILMACIONES")).total).toBe(3);
    // Fragments of a name, without accents: SERVEIS DE PRODUCCIÓ MUXART, S.L.
    const muxart = await search("company=produccio%20muxart");
    expect(muxart.rows.map((r) => r.value)).toEqual([88000, 47350, 42500]);
    expect((await search("buyer=television%20espanola&type=tender")).total).toBe(1);
    // Contracts: only ISTAC's award is formalized (start 2025-08-13).
    expect((await search("type=contract")).rows.map((r) => r.company?.name)).toEqual(["REDCA S.A."]);
    // Every award once across pages of one row.
    const all = await search("size=100");
    const paged: number[] = [];
    for (let page = 1; page <= all.total + 1; page++) {
      paged.push(...(await search(`size=1&page=${page}`)).rows.map((r) => r.id));
    }
    expect(paged).toEqual(all.rows.map((r) => r.id));
    expect(all.total).toBe(4);
    // Rows carry the labels of the reference data the server loaded at start (CPV_LABELS, NUTS_LABELS).
    const istac = (await paid("GET /v1/search", "/v1/search?type=contract")).body.data as unknown as Record<
      string,
      unknown
    >[];
    expect(istac[0]).toMatchObject({ cpv: "72313000", nuts: "ES70", cpv_label_es: expect.any(String) });
    expect(typeof istac[0]?.cpv_label_en).toBe("string");
    expect(typeof istac[0]?.nuts_name).toBe("string");
    const tender = await paid("GET /v1/tenders/:id", `/v1/tenders/${istac[0]?.tender_id}`);
    expect(tender.body.data).toMatchObject({
      cpv_main_label_en: istac[0]?.cpv_label_en,
      nuts_name: istac[0]?.nuts_name,
    });
    const bad = await fetch(`${base}/v1/search?cpv=7`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("cpv");
  });

  it("answers 400 for a malformed id and 404 for an unknown one", async () => {
    const bad = await fetch(`${base}/v1/companies/1.5`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
    const missing = await paid("GET /v1/buyers/:id/history", "/v1/buyers/987654/history");
    expect(missing.status).toBe(404);
  });
});
