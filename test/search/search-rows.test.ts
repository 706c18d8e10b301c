import { describe, expect, it } from "vitest";
import { afterIngestRun } from "../../src/analytics/after-ingest.ts";
import type { Db, Queryable } from "../../src/db/client.ts";
import { ingestTed } from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, getJson, postJson } from "../helpers/app.ts";
import { createTestDb, truncateAll, useTestDb } from "../helpers/db.ts";
import { AGGREGATED, buildPage, ingestPage, LIFECYCLE, splitFeed, TWO_ENTRIES } from "../helpers/placsp.ts";
import { TED_FIXTURES } from "../helpers/ted-server.ts";

/**
 * The search relation (`search_rows`, migration 0015) and the bounded search contract: totals exact up to
 * 10,000, text searches ranked among the 10,000 newest matches with title words outweighing description words,
 * the relation maintained in the transaction that changes its sources, and reads from a replica.
 */
const t = useTestDb();
const log = createLogger("silent");
const RTVE = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649";
const CADIZ = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18294555";

interface Body {
  data: { id: number; title: string | null; date: string | null; source_ref: string | null }[];
  meta: { page: number; total: number; total_exact: boolean };
}

async function search(query: string, db: Db = t.db, readDb?: Queryable): Promise<Body> {
  const { app } = buildTestApp({ db, readDb });
  const { res, body } = await getJson(app, `/v1/search?${query}`, {
    "x-payment": await devToken(app, "GET /v1/search"),
  });
  expect(res.status, query).toBe(200);
  return body as unknown as Body;
}

/** The relation's rows as the keys they stand for, for comparisons. */
async function searchRows(db: Queryable): Promise<string> {
  const { rows } = await db.query(
    `SELECT kind, id, tender_id, date, tsv::text AS tsv, cpv_prefixes, nuts, buyer_id, company_id, company_ids, value,
            currency
       FROM search_rows ORDER BY kind, id`,
  );
  return JSON.stringify(rows);
}

/**
 * A corpus of `count` tenders published one a day from 2000-01-01 (tender g on day g - 1), each with one award
 * 30 days later, inserted in SQL: the triggers fill the search relation as for any writer. Every text says
 * "plataforma" in its description; tender 1 (the oldest) says it twice in its title, tender 5000 once.
 */
async function insertBulkCorpus(db: Db, count: number): Promise<void> {
  await db.query(
    `INSERT INTO tenders (source, source_ref, title, description, publication_date, cpv_all, nuts, upstream_updated,
                          raw_hash)
     SELECT 'placsp', 'bulk-' || g,
            CASE g WHEN 1 THEN 'Plataforma de plataforma' WHEN 5000 THEN 'Plataforma de gestión'
                   ELSE 'Servicio número ' || g END,
            'Mantenimiento de la plataforma' || CASE WHEN g % 2 = 0 THEN ' de ciberseguridad' ELSE '' END,
            date '2000-01-01' + (g - 1), ARRAY['72000000'], 'ES300', now(), 'h' || g
       FROM generate_series(1, $1::int) AS g`,
    [count],
  );
  await db.query(
    `INSERT INTO awards (tender_id, award_key, source, award_date, value, currency)
     SELECT id, 'lot-1', 'placsp', publication_date + 30, 1000, 'EUR' FROM tenders WHERE source_ref LIKE 'bulk-%'`,
  );
}

describe("bounded totals and ranking window", () => {
  const COUNT = 10_050;

  it("caps the total at 10,000 with total_exact false, and is exact below", async () => {
    await truncateAll(t.db);
    await insertBulkCorpus(t.db, COUNT);
    for (const type of ["award", "tender"]) {
      const all = await search(`type=${type}`);
      expect(all.meta, type).toMatchObject({ total: 10_000, total_exact: false });
      // Newest first: tender 10050 (and its award).
      expect(all.data[0]?.title, type).toBe("Servicio número 10050");
    }
    // Half the texts mention ciberseguridad: an exact count under the bound.
    expect((await search("q=ciberseguridad&type=tender")).meta).toMatchObject({
      total: COUNT / 2,
      total_exact: true,
    });
    expect((await search("type=tender&from=2027-01-01")).meta).toMatchObject({ total_exact: true });
    // Writing 10,050 tenders and their awards (every trigger of the relation and of the signals' marks) takes
    // 15–20 s on PGlite on a loaded 2-core machine: a bound against a hang, not a timing.
  }, 120_000);

  it("pages through the first 10,000 rows only; a page beyond them is empty", async () => {
    const last = await search("type=tender&size=100&page=100");
    expect(last.data).toHaveLength(100);
    // The 10,000th newest of tenders 1..10050 is tender 51.
    expect(last.data.at(-1)?.title).toBe("Servicio número 51");
    const beyond = await search("type=tender&size=100&page=101");
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ page: 101, total: 10_000, total_exact: false });
  });

  it("ranks the 10,000 newest matches: a title match first, an older one outside the window never", async () => {
    const ranked = await search("q=plataforma&type=tender&size=100");
    expect(ranked.meta).toMatchObject({ total: 10_000, total_exact: false });
    // Tender 1 would outrank every other (the word twice in its title) but is older than the window.
    expect(ranked.data[0]?.title).toBe("Plataforma de gestión");
    // Then description-only matches by date, newest first.
    expect(ranked.data.slice(1, 3).map((r) => r.title)).toEqual([
      "Servicio número 10050",
      "Servicio número 10049",
    ]);
    const lastPage = await search("q=plataforma&type=tender&size=100&page=100");
    expect(lastPage.data.map((r) => r.title)).not.toContain("Plataforma de plataforma");
    expect(lastPage.data.at(-1)?.title).toBe("Servicio número 51");
    // Past the window: empty, with the same bounded total (the statement counts without ranking).
    const beyond = await search("q=plataforma&type=tender&size=100&page=101");
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ page: 101, total: 10_000, total_exact: false });
    // Narrowed by date, tender 1 is inside the window and outranks everything.
    const narrowed = await search("q=plataforma&type=tender&to=2001-01-01");
    expect(narrowed.meta).toMatchObject({ total: 367, total_exact: true });
    expect(narrowed.data[0]?.title).toBe("Plataforma de plataforma");
  });

  it("gives research the same bounded window: awards are those of the 10,000 newest matching tenders", async () => {
    const { app } = buildTestApp({ db: t.db });
    const research = async (query: string) => {
      const { res, body } = await postJson(
        app,
        "/v1/research",
        { query },
        {
          "x-payment": await devToken(app, "POST /v1/research"),
        },
      );
      expect(res.status).toBe(200);
      return (body as { data: { counts: Record<string, number | boolean> } }).data.counts;
    };
    // Every tender says "plataforma" (10,050): the window holds the newest 10,000, each with its one award, so
    // both counts stop at 10,000 and neither is exact.
    expect(await research("plataforma")).toMatchObject({
      matching_tenders: 10_000,
      matching_tenders_exact: false,
      matching_awards: 10_000,
      matching_awards_exact: false,
    });
    // Half say "ciberseguridad": 5,025 tenders and their 5,025 awards, exact.
    expect(await research("ciberseguridad")).toMatchObject({
      matching_tenders: 5_025,
      matching_tenders_exact: true,
      matching_awards: 5_025,
      matching_awards_exact: true,
    });
  });

  it("answers the worst input (200 characters of common words with every filter) like any other", async () => {
    const q =
      "servicio mantenimiento plataforma gestión sistemas información datos soporte técnico red ".repeat(3);
    const body = await search(
      `q=${encodeURIComponent(q.slice(0, 200))}&cpv=72&buyer=ayuntamiento&company=telefonica&region=ES3` +
        "&from=2000-01-01&to=2030-12-31&type=award",
    );
    expect(body.meta).toMatchObject({ total: 0, total_exact: true });
  });
});

describe("ranking by weighted text", () => {
  it("ranks a title match above a description-only match, whatever their dates", async () => {
    await truncateAll(t.db);
    await t.db.query(
      `INSERT INTO tenders (source, source_ref, title, description, publication_date, upstream_updated, raw_hash)
       VALUES ('placsp', 'title', 'Auditoría de ciberseguridad', 'Revisión anual', '2024-01-01', now(), 'a'),
              ('placsp', 'description', 'Servicios informáticos',
               'Incluye ciberseguridad, ciberseguridad perimetral y ciberseguridad de puesto', '2025-06-01', now(), 'b')`,
    );
    const ranked = await search("q=ciberseguridad&type=tender");
    expect(ranked.data.map((r) => r.source_ref)).toEqual(["title", "description"]);
    // Without a text query the order is by date: the description-only notice is newer.
    expect((await search("type=tender")).data.map((r) => r.source_ref)).toEqual(["description", "title"]);
  });
});

describe("maintenance of the search relation", () => {
  it("leaves the relation untouched when an unchanged page is ingested again", async () => {
    await truncateAll(t.db);
    await ingestPage(t.db, { file: LIFECYCLE });
    await ingestPage(t.db, { file: TWO_ENTRIES });
    const physical =
      "SELECT kind, id, xmin::text AS xmin, ctid::text AS ctid FROM search_rows ORDER BY kind, id";
    const before = (await t.db.query(physical)).rows;
    expect(before.length).toBeGreaterThan(0);
    await ingestPage(t.db, { file: TWO_ENTRIES });
    await ingestPage(t.db, { file: LIFECYCLE });
    expect((await t.db.query(physical)).rows).toEqual(before);
  });

  it("drops the rows of an annulled folder in the transaction that records its tombstone; a closed one stays", async () => {
    await truncateAll(t.db);
    await ingestPage(t.db, { file: TWO_ENTRIES });
    expect((await search("buyer=televisi%C3%B3n")).meta.total).toBe(3);
    const tombstone = (ref: string, type: string) =>
      `<at:deleted-entry ref="${ref}" when="2026-02-01T10:00:00.000+01:00"><at:comment type="${type}"/></at:deleted-entry>`;
    const { header } = splitFeed(TWO_ENTRIES);
    await ingestPage(t.db, {
      xml: buildPage(header, [tombstone(RTVE, "ANULADA"), tombstone(CADIZ, "CERRADA")]),
    });
    expect((await search("buyer=televisi%C3%B3n")).meta.total).toBe(0);
    expect((await search("buyer=televisi%C3%B3n&type=tender")).meta.total).toBe(0);
    const cadiz = await search("q=asfaltado&type=tender");
    expect(cadiz.data.map((r) => r.source_ref)).toEqual([CADIZ]);
  });

  it("changes the relation inside the writing transaction (at its commit), and a rollback leaves it as it was", async () => {
    await truncateAll(t.db);
    await ingestPage(t.db, { file: TWO_ENTRIES });
    const before = await searchRows(t.db);
    const award = (await t.db.query<{ id: number }>("SELECT min(id)::int AS id FROM awards")).rows[0]?.id;
    await t.db
      .transaction(async (tx) => {
        const row = "SELECT 1 FROM search_rows WHERE kind = 'award' AND id = $1";
        await tx.query("UPDATE awards SET superseded = true WHERE id = $1", [award]);
        // Maintenance runs once, at commit (one refresh per ingest batch) ...
        expect((await tx.query(row, [award])).rows).toHaveLength(1);
        // ... and asking for the deferred constraint now runs it inside the transaction, for every later write too.
        await tx.query("SET CONSTRAINTS search_rows_commit IMMEDIATE");
        expect((await tx.query(row, [award])).rows).toHaveLength(0);
        await tx.query(
          "UPDATE tenders SET linked_to = NULL, deleted_at = now(), deletion_reason = 'ANULADA'",
        );
        expect((await tx.query("SELECT 1 FROM search_rows")).rows).toHaveLength(0);
        throw new Error("roll back");
      })
      .catch((error: Error) => expect(error.message).toBe("roll back"));
    expect(await searchRows(t.db)).toBe(before);
  });

  it("equals a relation rebuilt from scratch after every fixture of both sources, linking included", async () => {
    await truncateAll(t.db);
    await ingestPage(t.db, { file: LIFECYCLE });
    await ingestPage(t.db, { file: TWO_ENTRIES });
    await ingestPage(t.db, { file: AGGREGATED }, { feed: "1044" });
    await ingestTed(
      { db: t.db, log, now: () => new Date("2024-11-01T12:00:00Z") },
      {
        source: TED_FIXTURES,
        since: null,
        maxNotices: null,
        batchSize: 250,
        http: {
          userAgent: "procurement-intel-test",
          timeoutMs: 1_000,
          retries: 0,
          baseDelayMs: 1,
          maxDelayMs: 1,
        },
        query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
        lookbackDays: 30,
        noticeIntervalMs: 0,
      },
    );
    await afterIngestRun({ db: t.db, log, now: () => new Date() });
    const { rows: counts } = await t.db.query<{ kind: string; n: number }>(
      "SELECT kind, count(*)::int AS n FROM search_rows GROUP BY kind ORDER BY kind",
    );
    expect(counts.map((c) => c.kind)).toEqual(["award", "contract", "tender"]);
    const incremental = await searchRows(t.db);
    await t.db
      .transaction(async (tx) => {
        await tx.query("DELETE FROM search_rows");
        await tx.query("SELECT search_rows_refresh(ARRAY(SELECT id FROM tenders))");
        expect((await tx.query("SELECT 1 FROM search_rows_pending")).rows).toEqual([]);
        expect(await searchRows(tx)).toBe(incremental);
        throw new Error("roll back");
      })
      .catch((error: Error) => expect(error.message).toBe("roll back"));
    // The rule the relation encodes, checked against the sources directly.
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM awards a JOIN tenders t ON t.id = a.tender_id
        WHERE NOT a.superseded AND t.linked_to IS NULL
          AND (t.deleted_at IS NULL OR t.deletion_reason = 'CERRADA')`,
    );
    expect(counts.find((c) => c.kind === "award")?.n).toBe(rows[0]?.n);
  });
});

describe("read replica", () => {
  it("answers search from the read database while payments stay on the primary", async () => {
    const replica = await createTestDb();
    try {
      await truncateAll(t.db);
      await ingestPage(replica.db, { file: LIFECYCLE });
      const fromReplica = await search("", t.db, replica.db);
      expect(fromReplica.meta.total).toBe(1);
      // Without the replica the primary holds nothing: "no data loaded" (404), before any charge.
      const { app } = buildTestApp({ db: t.db });
      const alone = await getJson(app, "/v1/search", { "x-payment": await devToken(app, "GET /v1/search") });
      expect(alone.res.status).toBe(404);
      // The token of the replica's answer is spent on the primary (payments never go to the replica); the
      // primary-only call spent nothing.
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM dev_tokens WHERE consumed_at IS NOT NULL",
      );
      expect(rows[0]?.n).toBe(1);
    } finally {
      await replica.destroy();
    }
  });
});
