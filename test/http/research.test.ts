import { beforeAll, describe, expect, it } from "vitest";
import { recomputeSignals } from "../../src/analytics/renewals/recompute.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, postJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertCompany, insertTender } from "../helpers/factories.ts";
import { insertContract, type RenewalHistory, seedRenewalHistory } from "../helpers/renewal-history.ts";

const t = useTestDb();
const log = createLogger("silent");
/** A clock before every crafted window ends: signal retention (90 days back from it) keeps them all. */
const KEEP_ALL = () => new Date("2023-01-01T00:00:00Z");
const NOW = new Date("2025-02-01T10:00:00.000Z");

/*
 * On top of the crafted renewal history (test/helpers/renewal-history.ts; every tender there is titled
 * "Servicio de mantenimiento de sistemas"), three tenders about "ciberseguridad":
 *   R1 "Servicio de ciberseguridad gestionada", Ayuntamiento de Prueba (b1), 72212730, published 2025-01-25,
 *      deadline 2025-03-01, status PUB, no award: open; the word is in the title.
 *   R2 "Mantenimiento de redes", Diputación de Muestra (b3), 72700000, published 2024-12-01, status PUB; the
 *      word only in its description: open (within 90 days of 2025-02-01).
 *   R3 "Plataforma de ciberseguridad", Consejería de Ensayo (b2), 72000000, published 2023-05-01, awarded
 *      2023-06-01 to Acme Sistemas SL: a matching award.
 */
let h: RenewalHistory;
const r: Record<string, number> = {};

beforeAll(async () => {
  h = await seedRenewalHistory(t.db);
  r.R1 = await insertTender(t.db, {
    sourceRef: "R1",
    buyerId: h.b1,
    title: "Servicio de ciberseguridad gestionada",
    cpvAll: ["72212730"],
    publicationDate: "2025-01-25",
    deadline: "2025-03-01T13:00:00Z",
    estimatedValue: 120000,
    url: "https://example.invalid/R1",
  });
  r.R2 = await insertTender(t.db, {
    sourceRef: "R2",
    buyerId: h.b3,
    title: "Mantenimiento de redes",
    cpvAll: ["72700000"],
    publicationDate: "2024-12-01",
  });
  await t.db.query(
    "UPDATE tenders SET description = 'Incluye una auditoría anual de ciberseguridad.' WHERE id = $1",
    [r.R2],
  );
  await t.db.query("UPDATE tenders SET status = 'open' WHERE id = ANY($1::bigint[])", [[r.R1, r.R2]]);
  r.R3 = await insertTender(t.db, {
    sourceRef: "R3",
    buyerId: h.b2,
    title: "Plataforma de ciberseguridad",
    cpvAll: ["72000000"],
    publicationDate: "2023-05-01",
  });
  const acme = (await t.db.query<{ id: number }>("SELECT id FROM companies WHERE name = 'Acme Sistemas SL'"))
    .rows[0]?.id as number;
  await insertContract(t.db, { tenderId: r.R3, winnerId: acme, cpv: "72000000", awardDate: "2023-06-01" });
  await insertCompany(t.db, "Otra Empresa SA");
  await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
});

async function research(body: unknown) {
  const { app } = buildTestApp({ db: t.db, now: () => NOW });
  return postJson(app, "/v1/research", body, { "x-payment": await devToken(app, "POST /v1/research") });
}

const strip = (body: Record<string, unknown>) => ({
  ...body,
  meta: { ...(body.meta as Record<string, unknown>), request_id: "<id>" },
});

describe("POST /v1/research", () => {
  it("builds the brief worked out by hand (the same bytes on every engine)", async () => {
    const { res, body } = await research({ query: "Ciberseguridad" });
    expect(res.status).toBe(200);
    const acmeId = (
      await t.db.query<{ id: number }>("SELECT id FROM companies WHERE name = 'Acme Sistemas SL'")
    ).rows[0]?.id;
    const placsp = (ref: string, url?: string) =>
      url ? { source: "placsp", source_ref: ref, url } : { source: "placsp", source_ref: ref };
    expect(body.data).toEqual({
      query: "Ciberseguridad",
      as_of: "2025-02-01",
      // 3 matching tenders + 1 matching award >= 3; fewer than 10 tenders: medium.
      confidence: "medium",
      summary:
        '3 tenders match "Ciberseguridad"; the newest, "Servicio de ciberseguridad gestionada", was published by ' +
        "Ayuntamiento de Prueba on 2025-01-25. No open renewal signal points at a matching contract or a named " +
        "buyer. Acme Sistemas SL won the most matching awards (1); 2 open matching tenders are in its CPV " +
        "divisions. Ayuntamiento de Prueba published the most matching tenders in the last 12 months (1).",
      counts: {
        matching_tenders: 3,
        matching_tenders_exact: true,
        matching_awards: 1,
        matching_awards_exact: true,
        open_renewal_signals: 0,
        buyers_named: 0,
        companies_named: 0,
      },
      findings: {
        recent_tenders: [
          {
            tender_id: r.R1,
            title: "Servicio de ciberseguridad gestionada",
            buyer: { id: h.b1, name: "Ayuntamiento de Prueba" },
            publication_date: "2025-01-25",
            deadline: "2025-03-01T13:00:00.000Z",
            cpv_main: "72212730",
            estimated_value: 120000,
            currency: "EUR",
            // the factory's PLACSP folder (ProcedureCode 1, TypeCode 2), set open, its deadline still ahead
            procedure_type: "open",
            contract_type: "services",
            status: "open",
            matched_in: "title",
            confidence: "high",
            evidence: [placsp("R1", "https://example.invalid/R1")],
          },
          {
            tender_id: r.R2,
            title: "Mantenimiento de redes",
            buyer: { id: h.b3, name: "Diputación de Muestra" },
            publication_date: "2024-12-01",
            deadline: null,
            cpv_main: "72700000",
            estimated_value: null,
            currency: "EUR",
            procedure_type: "open",
            contract_type: "services",
            // set open, no deadline
            status: "open",
            matched_in: "description",
            confidence: "medium",
            evidence: [placsp("R2")],
          },
          {
            tender_id: r.R3,
            title: "Plataforma de ciberseguridad",
            buyer: { id: h.b2, name: "Consejería de Ensayo" },
            publication_date: "2023-05-01",
            deadline: null,
            cpv_main: "72000000",
            estimated_value: null,
            currency: "EUR",
            procedure_type: "open",
            contract_type: "services",
            // the factory's folder is awarded (ADJ)
            status: "awarded",
            matched_in: "title",
            confidence: "high",
            evidence: [placsp("R3")],
          },
        ],
        renewal_signals: [],
        company_opportunities: [
          {
            company: { id: acmeId, name: "Acme Sistemas SL" },
            matching_awards: 1,
            last_award_date: "2023-06-01",
            cpv_divisions: ["72"],
            // R1 and R2 are open, unawarded and in division 72.
            open_opportunities: 2,
            confidence: "low",
            evidence: [placsp("R3")],
          },
        ],
        active_buyers: [
          // Since 2024-02-01: b1 (R1) and b3 (R2), one each: by id.
          {
            buyer: { id: h.b1, name: "Ayuntamiento de Prueba" },
            tenders_last_12_months: 1,
            last_publication_date: "2025-01-25",
            // T11's (high); T1's was re-tendered, the others are low (not listed by default).
            open_renewal_signals: 1,
            confidence: "low",
            evidence: [placsp("R1", "https://example.invalid/R1")],
          },
          {
            buyer: { id: h.b3, name: "Diputación de Muestra" },
            tenders_last_12_months: 1,
            last_publication_date: "2024-12-01",
            open_renewal_signals: 0,
            confidence: "low",
            evidence: [placsp("R2")],
          },
        ],
      },
      rules: expect.objectContaining({ matching: expect.stringContaining("Spanish full text") }),
    });
    expect(body.meta).toMatchObject({
      price_usd: "0.50",
      paid: true,
      provenance: [placsp("R1", "https://example.invalid/R1"), placsp("R2"), placsp("R3")],
    });
  });

  it("is byte-identical across calls", async () => {
    const first = await research({ query: "ciberseguridad", limit: 7 });
    const second = await research({ query: "ciberseguridad", limit: 7 });
    expect(JSON.stringify(strip(second.body))).toBe(JSON.stringify(strip(first.body)));
  });

  it("caps the findings of the whole brief, filling the groups in turns", async () => {
    const { body } = await research({ query: "ciberseguridad", limit: 2 });
    const findings = (body.data as { findings: Record<string, unknown[]> }).findings;
    // Turn 1: a tender, no signal, a company: 2 taken.
    expect(Object.fromEntries(Object.entries(findings).map(([k, v]) => [k, v.length]))).toEqual({
      recent_tenders: 1,
      renewal_signals: 0,
      company_opportunities: 1,
      active_buyers: 0,
    });
  });

  it("matches buyer names and follows them to their renewal signals", async () => {
    const { body } = await research({ query: "ayuntamiento de prueba", limit: 50 });
    const data = body.data as {
      counts: Record<string, number>;
      findings: { recent_tenders: { matched_in: string }[]; renewal_signals: { window_start: string }[] };
    };
    // b1's tenders: T0..T13 and R1; none mentions the words: matched by the buyer's name.
    expect(data.counts).toMatchObject({ matching_tenders: 15, buyers_named: 1, open_renewal_signals: 1 });
    expect(new Set(data.findings.recent_tenders.map((f) => f.matched_in))).toEqual(new Set(["buyer_name"]));
    // The listed ones only (medium or high): T11's.
    expect(data.findings.renewal_signals.map((s) => s.window_start)).toEqual(["2025-04-02"]);
  });

  it("says plainly when nothing matches", async () => {
    const { res, body } = await research({ query: "zzqqxx" });
    expect(res.status).toBe(200);
    expect(body.data).toMatchObject({
      confidence: "low",
      summary:
        'Nothing matches "zzqqxx": no tender, award or renewal signal in the data, and no buyer or company of that name.',
      findings: { recent_tenders: [], renewal_signals: [], company_opportunities: [], active_buyers: [] },
    });
    expect((body.meta as { provenance: unknown[] }).provenance).toEqual([]);
  });

  it("counts a company's award once when it matches by text and by the company's name; a lot without a CPV has its notice's division, a lot with one its own", async () => {
    // Last in this group: it adds a tender the briefs above do not expect.
    const zeta = await insertCompany(t.db, "Zeta Redes SA");
    await t.db.query("INSERT INTO company_aliases (company_id, alias) VALUES ($1, 'Zeta Redes SA')", [zeta]);
    const tender = await insertTender(t.db, {
      sourceRef: "R4",
      buyerId: h.b2,
      title: "Servicio Zeta de redes",
      cpvAll: ["48000000"],
      publicationDate: "2024-06-01",
    });
    await insertContract(t.db, { tenderId: tender, winnerId: zeta, cpv: null, awardDate: "2024-07-01" });
    // A win that only the company's name finds (its notice does not say "zeta"), with a CPV of its own: its
    // division is the award's (30), not its notice's (72).
    const unnamed = await insertTender(t.db, {
      sourceRef: "R5",
      buyerId: h.b2,
      title: "Suministro de equipos",
      cpvAll: ["72000000"],
      publicationDate: "2024-02-01",
    });
    await insertContract(t.db, {
      tenderId: unnamed,
      winnerId: zeta,
      cpv: "30200000",
      awardDate: "2024-03-01",
    });
    const { body } = await research({ query: "zeta", limit: 10 });
    const data = body.data as {
      counts: Record<string, number | boolean>;
      findings: { company_opportunities: unknown[] };
    };
    // R4's award is the text window's (R4 says "zeta") and the named company's: counted once; R5's is the named
    // company's only.
    expect(data.counts).toMatchObject({ matching_awards: 2, companies_named: 1 });
    expect(data.findings.company_opportunities).toEqual([
      expect.objectContaining({
        company: { id: zeta, name: "Zeta Redes SA" },
        matching_awards: 2,
        last_award_date: "2024-07-01",
        cpv_divisions: ["30", "48"],
      }),
    ]);
  });
});

describe("bad input", () => {
  it.each([
    [{}, "query"],
    [{ query: "" }, "query"],
    [{ query: "   " }, "query"],
    [{ query: "x".repeat(201) }, "query"],
    [{ query: 42 }, "query"],
    [{ query: "redes", limit: 0 }, "limit"],
    [{ query: "redes", limit: 51 }, "limit"],
    [{ query: "redes", limit: 1.5 }, "limit"],
    [{ query: "redes", limit: "5" }, "limit"],
  ])("%j -> 400 invalid_query naming %s, before any payment", async (payload, name) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await postJson(app, "/v1/research", payload);
    expect(res.status).toBe(400);
    const error = (body as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain(`"${name}"`);
    expect(error.hint.length).toBeGreaterThan(0);
  });

  it.each([
    ["not JSON", "{query: redes"],
    ["a JSON array", '["redes"]'],
    ["a JSON string", '"redes"'],
  ])("a body that is %s -> 400 invalid_query", async (_, raw) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await postJson(app, "/v1/research", raw);
    expect(res.status).toBe(400);
    const error = (body as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("invalid_query");
    expect(error.hint.length).toBeGreaterThan(0);
  });

  it("asks for payment (402) once the body is valid", async () => {
    const { app } = buildTestApp({ db: t.db });
    const { res } = await postJson(app, "/v1/research", { query: "redes" });
    expect(res.status).toBe(402);
  });
});
