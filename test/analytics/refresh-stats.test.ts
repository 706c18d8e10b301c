import { beforeEach, describe, expect, it } from "vitest";
import { refreshStats } from "../../src/analytics/refresh-stats.ts";
import type { Db } from "../../src/db/client.ts";
import { readLiveOpportunityProfile, readOpportunityProfile } from "../../src/db/queries/opportunities.ts";
import { listCompanyAwards } from "../../src/domain/companies/list-company-awards.ts";
import { ingestPlacsp } from "../../src/ingest/placsp/ingest-placsp.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { type CraftedEntry, craftedPage } from "../helpers/crafted-placsp.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { ingestPage, PLACSP_FIXTURES } from "../helpers/placsp.ts";

const t = useTestDb();
const log = createLogger("silent");
beforeEach(async () => {
  await truncateAll(t.db);
});

const BUYER = { name: "Diputación de Prueba", nif: "P0800000B" };
const S1 = { name: "Acme Sistemas SL", nif: "B12345674" };
const S2 = { name: "Beta Datos SA", nif: "A58818501" };

function entry(n: number, winner: typeof S1, value: number, extra: Partial<CraftedEntry> = {}): CraftedEntry {
  return {
    n,
    buyer: BUYER,
    cpv: "72000000",
    results: [{ winner, awardDate: `2025-0${n}-01`, value }],
    ...extra,
  };
}

/** The aggregates without their refresh times, in a total order: equal dumps, equal aggregates. */
async function statsDump(db: Db): Promise<unknown[]> {
  const companies = await db.query(
    `SELECT company_id, wins, total_value, ceilings_excluded, non_eur_excluded, top_cpvs, top_buyers,
            profile_buyers, profile_cpvs, profile_median_value
       FROM company_stats ORDER BY company_id`,
  );
  const buyers = await db.query(
    `SELECT buyer_id, awards_total, top3_share_by_count, top3_share_by_value, ceilings_excluded,
            non_eur_excluded, recurrence
       FROM buyer_stats ORDER BY buyer_id`,
  );
  return [companies.rows, buyers.rows];
}

async function pending(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ mark: string }>(
    `SELECT DISTINCT kind || ':' || c.nif AS mark FROM stats_dirty d JOIN companies c ON c.id = d.id
      WHERE d.kind = 'company'
     UNION
     SELECT DISTINCT kind || ':' || b.nif FROM stats_dirty d JOIN buyers b ON b.id = d.id WHERE d.kind = 'buyer'
     ORDER BY 1`,
  );
  return rows.map((r) => r.mark);
}

async function wins(db: Db, nif: string): Promise<number | null> {
  const { rows } = await db.query<{ wins: number }>(
    "SELECT s.wins FROM company_stats s JOIN companies c ON c.id = s.company_id WHERE c.nif = $1",
    [nif],
  );
  return rows[0]?.wins ?? null;
}

/** A whole ingest run over the real PLACSP fixtures (so with what follows every run). */
async function ingestFixtures(): Promise<void> {
  await ingestPlacsp(
    { db: t.db, log, now: () => new Date() },
    {
      source: PLACSP_FIXTURES,
      feed: null,
      since: null,
      maxPages: null,
      batchSize: 500,
      http: { userAgent: "test", timeoutMs: 1000, retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    },
  );
}

describe("refreshStats", () => {
  it("runs at the end of every ingest run", async () => {
    await ingestFixtures();
    expect(await pending(t.db)).toEqual([]);
    // MUXART: the three lots of 18526649 (42500 + 47350 + 88000); REDCA: the one award of 17165996.
    const { rows } = await t.db.query<{ nif: string; wins: number; total_value: number }>(
      `SELECT c.nif, s.wins, s.total_value FROM company_stats s JOIN companies c ON c.id = s.company_id
        ORDER BY c.nif`,
    );
    expect(rows).toEqual([
      { nif: "A38210100", wins: 1, total_value: 224002.34 },
      { nif: "B60707239", wins: 3, total_value: 177850 },
    ]);
    const buyers = await t.db.query<{ nif: string; awards_total: number }>(
      `SELECT b.nif, s.awards_total FROM buyer_stats s JOIN buyers b ON b.id = s.buyer_id ORDER BY b.nif`,
    );
    expect(buyers.rows).toEqual([
      { nif: "A84818558", awards_total: 3 },
      { nif: "Q8550002C", awards_total: 1 },
    ]);
  });

  it("recomputes only the companies and buyers whose awards changed, old and new winner alike", async () => {
    await ingestPage(t.db, { xml: craftedPage([entry(1, S1, 1000), entry(2, S2, 2000)]) });
    expect(await pending(t.db)).toEqual(["buyer:P0800000B", "company:A58818501", "company:B12345674"]);
    expect(await refreshStats({ db: t.db, log })).toMatchObject({ companies: 2, buyers: 1, full: false });
    expect(await pending(t.db)).toEqual([]);
    expect(await wins(t.db, S1.nif)).toBe(1);

    // The same content again, newer: nothing about the awards changed, nothing is marked.
    const later = "2026-02-01T10:00:00.000+01:00";
    await ingestPage(t.db, { xml: craftedPage([entry(1, S1, 1000, { updated: later })]) });
    // New content (the title) with the same award: the award row is rewritten as it was; nothing is marked.
    await ingestPage(t.db, {
      xml: craftedPage([
        entry(1, S1, 1000, { updated: "2026-02-02T10:00:00.000+01:00", title: "Otro título" }),
      ]),
    });
    expect(await pending(t.db)).toEqual([]);
    expect(await refreshStats({ db: t.db, log })).toMatchObject({ companies: 0, buyers: 0 });

    // Entry 1 re-published with another winner: the award of S1 is replaced by one of S2.
    await ingestPage(t.db, {
      xml: craftedPage([entry(1, S2, 1000, { updated: "2026-02-03T10:00:00.000+01:00" })]),
    });
    expect(await wins(t.db, S1.nif)).toBe(1); // materialized: unchanged until the refresh
    expect(await pending(t.db)).toEqual(["buyer:P0800000B", "company:A58818501", "company:B12345674"]);
    // S2 rewritten; S1 has no win left, so no row (served as 0 wins)
    expect(await refreshStats({ db: t.db, log })).toMatchObject({ companies: 1, buyers: 1 });
    expect(await wins(t.db, S1.nif)).toBeNull();
    expect(await wins(t.db, S2.nif)).toBe(2);
    const { rows } = await t.db.query<{ top3_share_by_count: number; top3_share_by_value: number }>(
      "SELECT top3_share_by_count, top3_share_by_value FROM buyer_stats",
    );
    expect(rows).toEqual([{ top3_share_by_count: 1, top3_share_by_value: 1 }]);
  });

  it("keeps the company awards total exact between an ingest and its refresh", async () => {
    await ingestPage(t.db, { xml: craftedPage([entry(1, S1, 1000), entry(2, S1, 2000)]) });
    await refreshStats({ db: t.db, log });
    const { rows } = await t.db.query<{ id: number }>("SELECT id FROM companies WHERE nif = $1", [S1.nif]);
    const ctx = { db: t.db, log, now: () => new Date() };
    const input = { id: rows[0]?.id ?? 0, page: 1, size: 20 };
    expect((await listCompanyAwards({ ctx, input })).total).toBe(2); // from company_stats

    await ingestPage(t.db, { xml: craftedPage([entry(3, S1, 3000)]) });
    expect(await wins(t.db, S1.nif)).toBe(2); // the aggregate waits for the refresh
    const pendingPage = await listCompanyAwards({ ctx, input }); // the list and its total do not
    expect(pendingPage.total).toBe(3);
    expect(pendingPage.awards).toHaveLength(3);

    await refreshStats({ db: t.db, log });
    expect((await listCompanyAwards({ ctx, input })).total).toBe(3);
  });

  it("gives, in full, exactly what the incremental refreshes gave", async () => {
    await ingestPage(t.db, { xml: craftedPage([entry(1, S1, 1000), entry(2, S2, 2000)]) });
    await refreshStats({ db: t.db, log });
    await ingestPage(t.db, {
      xml: craftedPage([
        entry(1, S2, 1500, { updated: "2026-02-03T10:00:00.000+01:00", framework: true }),
        entry(3, S1, 3000),
        entry(4, S1, 4000, { cpv: "48000000" }),
      ]),
    });
    await refreshStats({ db: t.db, log });
    const incremental = await statsDump(t.db);
    expect(await refreshStats({ db: t.db, log, full: true })).toMatchObject({
      companies: 2,
      buyers: 1,
      full: true,
    });
    expect(await statsDump(t.db)).toEqual(incremental);
  });

  it("serves each company's opportunity profile from its aggregates only while they are current", async () => {
    const OTHER = { name: "Ayuntamiento de Otro" };
    // The real notices, and S1's awards: buyers BUYER and OTHER, CPVs 72000000 and 48000000, EUR values 1000,
    // 3000 and 2000 (median 2000). S2: one award of 5000.
    await ingestFixtures();
    await ingestPage(t.db, {
      xml: craftedPage([
        entry(1, S1, 1000),
        entry(2, S1, 3000, { buyer: OTHER, cpv: "48000000" }),
        entry(3, S1, 2000),
        entry(4, S2, 5000),
      ]),
    });
    await refreshStats({ db: t.db, log });
    const companyId = async (nif: string) =>
      Number(
        (await t.db.query<{ id: number }>("SELECT id FROM companies WHERE nif = $1", [nif])).rows[0]?.id,
      );
    const s1 = await companyId(S1.nif);
    const s2 = await companyId(S2.nif);
    const buyerIds = (
      await t.db.query<{ id: number }>("SELECT id FROM buyers WHERE name = ANY($1) ORDER BY id", [
        [BUYER.name, OTHER.name],
      ])
    ).rows.map((r) => Number(r.id));

    // Every company with aggregates (the real notices' winners too): its stored profile is the live one.
    const { rows: stored } = await t.db.query<{
      company_id: number;
      buyers: number[];
      cpvs: string[];
      median_value: number | null;
    }>(
      `SELECT company_id, profile_buyers AS buyers, profile_cpvs AS cpvs, profile_median_value AS median_value
         FROM company_stats ORDER BY company_id`,
    );
    expect(stored.length).toBeGreaterThanOrEqual(4);
    for (const row of stored) {
      const live = await readLiveOpportunityProfile(t.db, Number(row.company_id));
      expect({ ...row, company_id: undefined, buyers: row.buyers.map(Number) }).toEqual({
        ...live,
        company_id: undefined,
      });
      expect(await readOpportunityProfile(t.db, Number(row.company_id))).toEqual(live);
    }
    expect(await readOpportunityProfile(t.db, s1)).toEqual({
      buyers: buyerIds,
      cpvs: ["48000000", "72000000"],
      median_value: 2000,
    });

    // A new award of S1 not yet refreshed: the profile is read live (values 1000, 2000, 3000, 10000: 2500).
    await ingestPage(t.db, { xml: craftedPage([entry(5, S1, 10000)]) });
    expect(await readOpportunityProfile(t.db, s1)).toMatchObject({ median_value: 2500 });
    await refreshStats({ db: t.db, log });
    expect(await readOpportunityProfile(t.db, s1)).toMatchObject({ median_value: 2500 });

    // S1 a member of a joint venture (here S2 stands for one): its profile adds the venture's award (5000), which
    // its own aggregates do not hold, so it is read live: 1000, 2000, 3000, 5000, 10000 gives 3000.
    await t.db.query("INSERT INTO company_members (group_id, member_id) VALUES ($1, $2)", [s2, s1]);
    expect(await readOpportunityProfile(t.db, s1)).toMatchObject({ median_value: 3000 });
    expect(await readOpportunityProfile(t.db, s2)).toMatchObject({ median_value: 5000 });
  });
});
