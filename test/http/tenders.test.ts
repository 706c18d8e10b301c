import { describe, expect, it } from "vitest";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertAward, insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";

const t = useTestDb();

async function paidGet(path: string) {
  const { app } = buildTestApp({ db: t.db });
  return getJson(app, path, { "x-payment": await devToken(app, "GET /v1/tenders/:id") });
}

describe("GET /v1/tenders/{id}", () => {
  it("answers the spec's Tender with awards, provenance and the ceiling caveat", async () => {
    const buyer = await insertBuyer(t.db, "Ayuntamiento de Sevilla", "P4109100J");
    const winnerA = await insertCompany(t.db, "Acme Sistemas SL", "B12345674");
    const winnerB = await insertCompany(t.db, "Beta Datos SA", "A58818501");
    const url = "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=abc";
    const id = await insertTender(t.db, {
      sourceRef: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/1",
      title: "Mantenimiento de aplicaciones",
      buyerId: buyer,
      cpvAll: ["72267000", "72000000"],
      deadline: "2025-06-12T13:00:00Z",
      estimatedValue: 120000.5,
      url,
    });
    const lot2 = await insertAward(t.db, {
      tenderId: id,
      lot: "2",
      winnerId: winnerB,
      value: 50000,
      framework: true,
    });
    const lot10 = await insertAward(t.db, { tenderId: id, lot: "10", winnerId: null, value: null });
    const lot1 = await insertAward(t.db, {
      tenderId: id,
      lot: "1",
      winnerId: winnerA,
      value: 42500,
      biddersCount: 4,
    });

    const { res, body } = await paidGet(`/v1/tenders/${id}`);
    expect(res.status).toBe(200);
    expect(body.data).toEqual({
      id,
      source_ref: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/1",
      // the factory's folder: DOC_CAN_ADJ, ProcedureCode 1, TypeCode 2, status ADJ, in the common vocabulary
      notice_type: "award-notice",
      publication_date: "2025-03-01",
      title: "Mantenimiento de aplicaciones",
      description: null,
      cpv_main: "72267000",
      // No CPV or NUTS reference data in this database: labels and names are null, never invented.
      cpv_main_label_en: null,
      cpv_main_label_es: null,
      cpv_all: ["72267000", "72000000"],
      procedure_type: "open",
      contract_type: "services",
      status: "awarded",
      source_codes: { notice: "DOC_CAN_ADJ", procedure: "1", contract: "2", status: "ADJ" },
      deadline: "2025-06-12T13:00:00.000Z",
      estimated_value: 120000.5,
      currency: "EUR",
      nuts: "ES300",
      nuts_name: null,
      url,
      buyer: { id: buyer, name: "Ayuntamiento de Sevilla" },
      // Lots in natural order (1, 2, 10), not string order.
      awards: [
        expect.objectContaining({
          id: lot1,
          lot: "1",
          winner: { id: winnerA, name: "Acme Sistemas SL" },
          value: 42500,
        }),
        expect.objectContaining({ id: lot2, lot: "2", framework: true, value: 50000 }),
        expect.objectContaining({ id: lot10, lot: "10", winner: null, value: null }),
      ],
    });
    const award = (body.data as { awards: Record<string, unknown>[] }).awards[0];
    expect(Object.keys(award ?? {}).sort()).toEqual(
      [
        "id",
        "tender_id",
        "source_ref",
        "award_date",
        "lot",
        "winner",
        "value",
        "currency",
        "bidders_count",
        "framework",
        "duration_months",
        "start_date",
        "start_date_kind",
        "end_date",
      ].sort(),
    );
    expect(award).toMatchObject({
      tender_id: id,
      award_date: "2025-04-15",
      bidders_count: 4,
      duration_months: 12,
    });
    expect(body.meta).toMatchObject({
      paid: true,
      price_usd: "0.02",
      provenance: [
        {
          source: "placsp",
          source_ref: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/1",
          url,
        },
      ],
      caveats: [expect.stringMatching(/ceiling/)],
    });
  });

  it("omits the caveat when no value is a ceiling, and nulls what is unknown", async () => {
    const id = await insertTender(t.db, { sourceRef: "bare", publicationDate: null });
    const { body } = await paidGet(`/v1/tenders/${id}`);
    expect(body.data).toMatchObject({
      buyer: null,
      url: null,
      deadline: null,
      publication_date: null,
      awards: [],
    });
    expect(body.meta).not.toHaveProperty("caveats");
    expect((body.meta as { provenance: unknown[] }).provenance).toEqual([
      { source: "placsp", source_ref: "bare" },
    ]);
  });

  it("reads an open tender whose deadline has passed as in evaluation, and keeps the stored status", async () => {
    const id = await insertTender(t.db, {
      sourceRef: "https://crafted.invalid/open-tender",
      deadline: "2025-06-12T13:00:00Z",
    });
    await t.db.query(
      `UPDATE tenders SET status = 'open', notice_type = 'contract-notice',
              source_codes = '{"notice": "DOC_CN", "procedure": "1", "contract": "2", "status": "PUB"}'
        WHERE id = $1`,
      [id],
    );
    const at = async (now: string) => {
      const { app } = buildTestApp({ db: t.db, now: () => new Date(now) });
      const { body } = await getJson(app, `/v1/tenders/${id}`, {
        "x-payment": await devToken(app, "GET /v1/tenders/:id"),
      });
      return body.data as { status: string; notice_type: string; source_codes: Record<string, string> };
    };
    // before the deadline: open, as stored (PLACSP PUB, "en plazo")
    expect((await at("2025-06-12T12:59:59Z")).status).toBe("open");
    // after it: submission is closed and no result is known yet
    const after = await at("2025-06-12T13:00:01Z");
    expect(after).toMatchObject({ status: "evaluation", notice_type: "contract-notice" });
    // the code as published does not change
    expect(after.source_codes.status).toBe("PUB");
    const { rows } = await t.db.query("SELECT status FROM tenders WHERE id = $1", [id]);
    expect(rows).toEqual([{ status: "open" }]);
  });

  it("answers 404 not_found with a hint for an id that does not exist", async () => {
    const { res, body } = await paidGet("/v1/tenders/424242");
    expect(res.status).toBe(404);
    expect(body).toEqual({
      error: {
        code: "not_found",
        message: "No tender with id 424242.",
        hint: "Tender ids come from GET /v1/search results (field id, or tender_id on award rows).",
      },
    });
  });
});
