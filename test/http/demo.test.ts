import { describe, expect, it } from "vitest";
import { recomputeSignals } from "../../src/analytics/renewals/recompute.ts";
import { refreshSourceCoverage } from "../../src/db/queries/demo.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, getJson } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";
import { seedRenewalHistory } from "../helpers/renewal-history.ts";

const t = useTestDb();
const log = createLogger("silent");
/** A clock before every crafted window ends: signal retention (90 days back from it) keeps them all. */
const KEEP_ALL = () => new Date("2023-01-01T00:00:00Z");

async function demo(now: string, env: Record<string, string> = {}) {
  const { app } = buildTestApp({ db: t.db, now: () => new Date(now), env });
  return getJson(app, "/v1/demo"); // free: no payment header
}

interface DemoBody {
  note: string;
  priced_endpoints: { endpoint: string; price_usd: string }[];
  tender: Record<string, unknown> | null;
  renewal: Record<string, unknown> | null;
  source_metadata: Record<string, unknown>[];
}

// The tests run in order: the empty database first, then the crafted history of test/helpers/renewal-history.ts.
describe("GET /v1/demo", () => {
  it("answers an empty database with nulls and says how to load data", async () => {
    const { res, body } = await demo("2025-02-01T08:00:00Z", { INGEST_SCHEDULE: "off" });
    expect(res.status).toBe(200);
    const data = body.data as DemoBody;
    expect(data.tender).toBeNull();
    expect(data.renewal).toBeNull();
    expect(data.note).toContain("npm run cli -- ingest placsp");
    expect(data.note).toContain("seed --synthetic");
    expect(data.source_metadata).toEqual([
      {
        source: "placsp",
        enabled: false,
        records: 0,
        indexed_from: null,
        indexed_to: null,
        last_ingestion: null,
      },
      {
        source: "ted",
        enabled: false,
        records: 0,
        indexed_from: null,
        indexed_to: null,
        last_ingestion: null,
      },
    ]);
    expect(body.meta).toMatchObject({
      price_usd: "0.00",
      paid: true,
      provenance: [],
      generated_at: "2025-02-01T08:00:00.000Z",
    });
    expect(data.priced_endpoints).toContainEqual({ endpoint: "GET /v1/renewals", price_usd: "0.25" });
    expect(data.priced_endpoints).toContainEqual({ endpoint: "GET /v1/tenders/:id", price_usd: "0.02" });
    expect(data.priced_endpoints).toContainEqual({ endpoint: "POST /v1/research", price_usd: "0.50" });
    expect(data.priced_endpoints).toContainEqual({
      endpoint: "GET /v1/companies/:id/opportunities",
      price_usd: "0.10",
    });
  });

  it("samples the newest tender and the most recent open signal, labelled", async () => {
    await seedRenewalHistory(t.db);
    await recomputeSignals({ db: t.db, log, now: KEEP_ALL, full: true });
    // What every ingest run ends with (analytics/after-ingest.ts); the history here was written by hand.
    await refreshSourceCoverage(t.db, new Date());
    await t.db.query(
      `INSERT INTO ingest_runs (source, status, started_at, finished_at)
       VALUES ('placsp', 'succeeded', '2025-01-31T01:00:00Z', '2025-01-31T01:05:00Z'),
              ('placsp', 'failed', '2025-01-31T02:00:00Z', '2025-01-31T02:01:00Z')`,
    );
    // 2025-02-01: the recurrence windows are over, no listed window has started (T1's is re-tendered by T9, T2's
    // is over and low), so the sample is the soonest upcoming one: T11's (2025-04-02 .. 2025-07-01, high).
    const { res, body } = await demo("2025-02-01T08:00:00Z");
    expect(res.status).toBe(200);
    const data = body.data as DemoBody;
    expect(data.tender).toEqual({
      sample: true,
      title: "Desarrollo y soporte de la sede electrónica municipal",
      buyer: { name: "Ayuntamiento de Prueba", country: null },
      cpv_main: "72500000",
      estimated_value: null,
      currency: "EUR",
      published_at: "2025-01-20",
      source: "placsp",
      source_ref: "placsp:T9",
      evidence: ["placsp notice T9, published 2025-01-20"],
    });
    expect(data.renewal).toMatchObject({
      sample: true,
      signal_type: "duration_expiry",
      incumbent: "Acme Sistemas SL",
      contract: { title: "Transporte escolar ruta costa", end_date: "2025-07-01" },
      confidence: "high",
      basis: { signal_type: "duration_expiry", tender_ref: "T11", end_date_source: "start_plus_duration" },
      source: "placsp",
      source_ref: "placsp:T11",
    });
    expect(data.source_metadata[0]).toEqual({
      source: "placsp",
      enabled: true,
      records: 19,
      indexed_from: "2021-01-10",
      indexed_to: "2025-01-20",
      last_ingestion: "2025-01-31T01:05:00.000Z",
    });
    expect(
      (body.meta as { provenance: { source_ref: string }[] }).provenance.map((p) => p.source_ref),
    ).toEqual(["T9", "T11"]);
    expect(data.note).toContain("sample: true");
  });

  it("prefers a recurrence signal whose window is open", async () => {
    // 2024-03-10: B3's window (2024-03-02 .. 2024-05-01) is open (B2's ended on 2024-02-19).
    const data = (await demo("2024-03-10T00:00:00Z")).body.data as DemoBody;
    expect(data.renewal).toMatchObject({
      signal_type: "recurrence",
      confidence: "medium",
      source_ref: "placsp:T31",
    });
    expect(data.renewal?.basis).toMatchObject({ evidence_count: 2, last_award_date: "2023-06-01" });
    expect(data.renewal?.evidence).toEqual([
      expect.stringMatching(/on 2022-06-01$/),
      expect.stringMatching(/on 2023-06-01$/),
    ]);
  });

  it("is byte-identical for the same data and time", async () => {
    const first = await demo("2025-02-01T08:00:00Z");
    const second = await demo("2025-02-01T08:00:00Z");
    const strip = (b: Record<string, unknown>) => ({ ...b, meta: { ...(b.meta as object), request_id: "" } });
    expect(JSON.stringify(strip(second.body))).toBe(JSON.stringify(strip(first.body)));
  });

  it("samples only a tender that search shows: newer ones linked, tombstoned or undated are passed over", async () => {
    const newer = (source: "placsp" | "ted", sourceRef: string, publicationDate: string | null) =>
      insertTender(t.db, { source, sourceRef, title: `Newer ${sourceRef}`, publicationDate });
    // L1 (2025-01-25) is linked to its TED twin (2025-01-22): search shows the twin only.
    const twin = await newer("ted", "L1", "2025-01-22");
    const linked = await newer("placsp", "L1", "2025-01-25");
    await t.db.query("UPDATE tenders SET linked_to = $1 WHERE id = $2", [twin, linked]);
    const annulled = await newer("placsp", "D1", "2025-01-28");
    await t.db.query("UPDATE tenders SET deleted_at = now(), deletion_reason = 'ANULADA' WHERE id = $1", [
      annulled,
    ]);
    await newer("placsp", "U1", null);
    const data = (await demo("2025-02-01T08:00:00Z")).body.data as DemoBody;
    expect(data.tender).toMatchObject({ source: "ted", source_ref: "L1", published_at: "2025-01-22" });
  });
});
