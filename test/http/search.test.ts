import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { AGGREGATED, buildPage, ingestPage, LIFECYCLE, splitFeed, TWO_ENTRIES } from "../helpers/placsp.ts";

/**
 * GET /v1/search on the real fixtures, ingested through the real pipeline, plus one crafted entry: the RTVE
 * folder re-published under another id with TELEFÓNICA DE ESPAÑA, S.A.U. (A82018474) as winner of lot 1.
 *
 * What the fixtures hold (read from the XML):
 * - ISTAC 17165996, "Trabajos de recogida … ENCUESTA DE CONDICIONES DE VIDA …", published 2025-04-23, CPV 72313000,
 *   NUTS ES70; one award to REDCA S.A., 224002.34, awarded 2025-07-18, formalized, contract start 2025-08-13.
 * - RTVE 18526649, "Alquiler equipos filmación- Benidorm Fest 2026", published 2025-12-04, CPVs 32000000 and
 *   42414100, NUTS ES521; three lots awarded 2025-12-29 to SERVEIS DE PRODUCCIÓ MUXART, S.L.: 42500, 47350, 88000.
 * - Cádiz 18294555, "Plan de asfaltado 2025 …", published 2025-10-30, CPVs 45233222/45233223, NUTS ES612; no award.
 * - AMB 20283724 (aggregated feed), published 2026-08-11, CPV 90513000, NUTS ES511; no award.
 * The copy's lot 1 goes to Telefónica, awarded 2025-12-30; its lots 2 and 3 stay with MUXART on 2025-12-29.
 */
const RTVE = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649";
const COPY = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/99999001";

interface Row {
  kind: string;
  id: number;
  source_ref: string | null;
  title: string | null;
  date: string | null;
  buyer: { id: number; name: string } | null;
  company: { id: number; name: string } | null;
  value: number | null;
  currency: string | null;
  cpv: string | null;
  tender_id: number | null;
  tender_source_ref: string | null;
}
interface Body {
  data: Row[];
  meta: {
    page: number;
    total: number;
    total_exact: boolean;
    paid: boolean;
    price_usd: string;
    provenance: { source_ref: string }[];
  };
  error?: { code: string; message: string };
}

const companies = (rows: Row[]) => rows.map((r) => r.company?.name ?? null);
const values = (rows: Row[]) => rows.map((r) => r.value);

describe("GET /v1/search", () => {
  const t = useTestDb();

  beforeAll(async () => {
    await ingestPage(t.db, { file: LIFECYCLE });
    await ingestPage(t.db, { file: TWO_ENTRIES });
    await ingestPage(t.db, { file: AGGREGATED }, { feed: "1044" });
    const { header, entries } = splitFeed(TWO_ENTRIES);
    const copy = (entries[0] ?? "")
      .replace(RTVE, COPY)
      .replace("B60707239", "A82018474")
      .replace("SERVEIS DE PRODUCCIÓ MUXART, S.L.", "TELEFÓNICA DE ESPAÑA, S.A.U.")
      .replace("<cbc:AwardDate>2025-12-29</cbc:AwardDate>", "<cbc:AwardDate>2025-12-30</cbc:AwardDate>");
    await ingestPage(t.db, { xml: buildPage(header, [copy]) });
  });

  /** One paid search. */
  async function search(query: string): Promise<{ status: number; body: Body }> {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, `/v1/search?${query}`, {
      "x-payment": await devToken(app, "GET /v1/search"),
    });
    return { status: res.status, body: body as unknown as Body };
  }

  it("returns award rows by default, newest first, with every field present and paid meta", async () => {
    const { status, body } = await search("");
    expect(status).toBe(200);
    // 1 ISTAC + 3 RTVE + 3 copy awards; newest first: Telefónica's lot (2025-12-30), the five 2025-12-29 lots,
    // ISTAC (2025-07-18).
    expect(body.meta).toMatchObject({ page: 1, total: 7, total_exact: true, paid: true, price_usd: "0.02" });
    expect(body.data.map((r) => r.date)).toEqual([
      "2025-12-30",
      "2025-12-29",
      "2025-12-29",
      "2025-12-29",
      "2025-12-29",
      "2025-12-29",
      "2025-07-18",
    ]);
    // Same date: id descending. Awards were inserted RTVE lots 1-3, then the copy's lots 1-3.
    expect(values(body.data).slice(1, 6)).toEqual([88000, 47350, 88000, 47350, 42500]);
    for (const row of body.data) {
      expect(Object.keys(row).sort()).toEqual(
        [
          "buyer",
          "company",
          "cpv",
          "cpv_label_en",
          "cpv_label_es",
          "currency",
          "date",
          "id",
          "kind",
          "nuts",
          "nuts_name",
          "source_ref",
          "tender_id",
          "tender_source_ref",
          "title",
          "value",
        ].sort(),
      );
      expect(row.kind).toBe("award");
    }
    const istac = body.data[6];
    expect(istac).toMatchObject({
      title: expect.stringContaining("ENCUESTA DE CONDICIONES DE VIDA"),
      company: { name: "REDCA S.A." },
      buyer: { name: "Director del Instituto Canario de Estadística (ISTAC)" },
      value: 224002.34,
      currency: "EUR",
      cpv: "72313000",
      tender_source_ref:
        "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996",
    });
  });

  it("lists each upstream notice of the page once in provenance, with its URL", async () => {
    const { body } = await search("");
    expect(body.meta.provenance.map((p) => p.source_ref)).toEqual([
      COPY,
      RTVE,
      "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996",
    ]);
    expect(body.meta.provenance[1]).toMatchObject({
      source: "placsp",
      url: expect.stringMatching(/^https:\/\//),
    });
  });

  it("searches Spanish full text: accent- and case-insensitive, stemmed", async () => {
    for (const q of ["filmacion", "FILMACIÓN", "Filmaciones"]) {
      const { body } = await search(`q=${encodeURIComponent(q)}`);
      expect(body.meta.total, q).toBe(6);
    }
    const { body } = await search("q=encuestas");
    expect(companies(body.data)).toEqual(["REDCA S.A."]);
  });

  it("treats quotes and operators as plain words, and stop words or punctuation as matching nothing", async () => {
    const operators = await search(`q=${encodeURIComponent('"filmación" & !benidorm | (fest:*')}`);
    expect(operators.status).toBe(200);
    expect(operators.body.meta.total).toBe(6);
    for (const q of ["de la el", "!!! ???", "   "]) {
      const { status, body } = await search(`q=${encodeURIComponent(q)}`);
      expect(status, q).toBe(200);
      expect(body.data, q).toEqual(q.trim() === "" ? body.data : []);
    }
    expect((await search("q=de%20la%20el")).body.meta.total).toBe(0);
  });

  it("finds a company by an accent- and case-free name fragment", async () => {
    const { body } = await search("company=telefonica");
    expect(companies(body.data)).toEqual(["TELEFÓNICA DE ESPAÑA, S.A.U."]);
    expect(values(body.data)).toEqual([42500]);
    expect((await search("company=PRODUCCIO%20MUXART")).body.meta.total).toBe(5);
  });

  it("filters by buyer fragment", async () => {
    const { body } = await search("buyer=televisi%C3%B3n");
    expect(body.meta.total).toBe(6);
    expect(new Set(body.data.map((r) => r.buyer?.name))).toEqual(
      new Set(["Dirección de Compras de la Corporación de Radio y Televisión Española S.A."]),
    );
  });

  it("matches award rows by their own CPV and tender rows by any CPV of the notice; a check digit is ignored", async () => {
    expect(companies((await search("cpv=72")).body.data)).toEqual(["REDCA S.A."]);
    expect(companies((await search("cpv=72313000-2")).body.data)).toEqual(["REDCA S.A."]);
    // RTVE's notice has 32000000 and 42414100: lot 1 is 42414100, lots 2 and 3 are 32000000, in the original
    // and in the copy. An award row matches by its own lot's CPV only.
    const lots42 = (await search("cpv=42")).body;
    expect(lots42.meta.total).toBe(2);
    expect(lots42.data.map((r) => r.cpv)).toEqual(["42414100", "42414100"]);
    expect((await search("cpv=4241")).body.meta.total).toBe(2);
    const lots32 = (await search("cpv=32")).body;
    expect(lots32.meta.total).toBe(4);
    expect(new Set(lots32.data.map((r) => r.cpv))).toEqual(new Set(["32000000"]));
    // A tender row matches by any CPV of its notice: both RTVE notices.
    expect((await search("cpv=42&type=tender")).body.meta.total).toBe(2);
    expect((await search("cpv=99")).body.meta.total).toBe(0);
  });

  it("filters by NUTS prefix", async () => {
    expect(companies((await search("region=ES70")).body.data)).toEqual(["REDCA S.A."]);
    const { body } = await search("region=es5&type=tender");
    expect(body.data.map((r) => r.title)).toEqual([
      "Servicios de tratamiento de la fracción vegetal municipal procedente de los municipios del AMB",
      "Alquiler equipos filmación- Benidorm Fest 2026",
      "Alquiler equipos filmación- Benidorm Fest 2026",
    ]);
  });

  it("returns tender rows: publication date, estimated value, no company", async () => {
    const { body } = await search("type=tender");
    expect(body.meta.total).toBe(5);
    expect(body.data.map((r) => [r.date, r.value])).toEqual([
      ["2026-08-11", 2183870.93],
      ["2025-12-04", 195000],
      ["2025-12-04", 195000],
      ["2025-10-30", 367768.59],
      ["2025-04-23", 261901.77],
    ]);
    for (const row of body.data) {
      expect(row).toMatchObject({ kind: "tender", company: null });
      expect(row.tender_id).toBe(row.id);
      expect(row.tender_source_ref).toBe(row.source_ref);
    }
    // A tender search by company finds the tenders the company won.
    // Both RTVE folders were published 2025-12-04: the copy (higher id) first.
    expect((await search("type=tender&company=muxart")).body.data.map((r) => r.source_ref)).toEqual([
      COPY,
      RTVE,
    ]);
  });

  it("returns contract rows: signed contracts, dated by their start", async () => {
    const { body } = await search("type=contract");
    expect(body.data.map((r) => [r.kind, r.date, r.company?.name])).toEqual([
      ["contract", "2025-08-13", "REDCA S.A."],
    ]);
  });

  it("applies from/to to the row kind's date", async () => {
    expect((await search("from=2025-12-30")).body.meta.total).toBe(1);
    expect(companies((await search("to=2025-07-31")).body.data)).toEqual(["REDCA S.A."]);
    expect((await search("type=tender&from=2026-01-01")).body.meta.total).toBe(1);
    expect((await search("type=contract&from=2025-08-13&to=2025-08-13")).body.meta.total).toBe(1);
    expect((await search("type=contract&to=2025-08-12")).body.meta.total).toBe(0);
  });

  it("pages deterministically: every row once, a page past the end empty", async () => {
    const all = (await search("size=100")).body.data.map((r) => r.id);
    const paged: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const { body } = await search(`size=2&page=${page}`);
      expect(body.meta).toMatchObject({ page, total: 7 });
      paged.push(...body.data.map((r) => r.id));
    }
    expect(paged).toEqual(all);
    const past = await search("size=2&page=50");
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.total).toBe(7);
  });

  it("answers from the latest data right after an ingest run", async () => {
    expect((await search("q=asfaltado&type=tender")).body.meta.total).toBe(1);
    const { header, entries } = splitFeed(TWO_ENTRIES);
    const another = (entries[1] ?? "").replace(
      "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18294555",
      "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/99999002",
    );
    await ingestPage(t.db, { xml: buildPage(header, [another]) });
    expect((await search("q=asfaltado&type=tender")).body.meta.total).toBe(2);
  });

  it("declares the bounded total in OpenAPI: page, total and total_exact always present", async () => {
    const { app } = buildTestApp({ db: t.db });
    const doc = (await (await app.request("/openapi.json")).json()) as {
      components: { schemas: Record<string, { allOf?: { required?: string[] }[] }> };
    };
    const required = doc.components.schemas.SearchMeta?.allOf?.flatMap((part) => part.required ?? []);
    expect(required).toEqual(expect.arrayContaining(["page", "total", "total_exact"]));
  });

  it("validates before charging: a bad parameter is a 400 even without payment", async () => {
    const { app } = buildTestApp({ db: t.db });
    const res = await app.request("/v1/search?size=500");
    expect(res.status).toBe(400);
    const body = (await res.json()) as Body;
    expect(body.error?.message).toContain('query parameter "size"');
    expect((await app.request("/v1/search")).status).toBe(402);
  });
});
