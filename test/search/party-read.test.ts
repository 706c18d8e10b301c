import { beforeAll, describe, expect, it } from "vitest";
import { type SearchFilters, type SearchKind, searchPage } from "../../src/db/queries/search.ts";
import { useTestDb } from "../helpers/db.ts";

/**
 * Named parties alone are read party by party (db/queries/search.ts, matchedRows): each party's newest rows from
 * its own index, merged. The answer must be the list order over all of their rows, whatever the parties' sizes,
 * with rows of several parties on the same day, undated rows last, dates as bounds, and a party named twice. The
 * reference here is computed in the test from every row of those parties, sorted in JavaScript.
 */
const t = useTestDb();
const WINDOW = 150;

interface Row {
  id: number;
  date: string | null;
}

let buyers: number[] = [];
let companies: number[] = [];

beforeAll(async () => {
  const b = await t.db.query<{ id: number }>(
    `INSERT INTO buyers (name, name_norm)
     SELECT 'Comprador ' || g, 'comprador ' || g FROM generate_series(1, 3) AS g RETURNING id`,
  );
  buyers = b.rows.map((r) => Number(r.id));
  const c = await t.db.query<{ id: number }>(
    `INSERT INTO companies (name, name_norm)
     SELECT 'Empresa ' || g, 'empresa ' || g FROM generate_series(1, 3) AS g RETURNING id`,
  );
  companies = c.rows.map((r) => Number(r.id));
  // 600 tenders: buyer g % 7 < 4 → first (big), 4..5 → second, 6 → third; one a day for 300 days, so two share
  // each day (and the list order falls back to ids); every 50th has no publication date. Each has an award 10
  // days later to company g % 3, signed (a contract row, dated by its start) for every other one; every 5th has
  // a second lot won by company (g + 1) % 3, so its tender row has two winners.
  await t.db.query(
    `INSERT INTO tenders (source, source_ref, title, publication_date, cpv_all, buyer_id, upstream_updated, raw_hash)
     SELECT 'placsp', 'party-' || g, 'Servicio ' || g,
            CASE WHEN g % 50 = 0 THEN NULL ELSE date '2024-01-01' + g / 2 END, ARRAY['72000000'],
            ($1::bigint[])[CASE WHEN g % 7 < 4 THEN 1 WHEN g % 7 < 6 THEN 2 ELSE 3 END], now(), 'h' || g
       FROM generate_series(1, 600) AS g`,
    [buyers],
  );
  await t.db.query(
    `INSERT INTO awards (tender_id, buyer_id, award_key, source, award_date, winner_company_id, value, currency,
                         contract_signed, start_date, start_date_kind)
     SELECT t.id, t.buyer_id, 'lot-1', 'placsp', t.publication_date + 10,
            ($1::bigint[])[1 + substring(t.source_ref FROM 7)::int % 3], 1000, 'EUR',
            substring(t.source_ref FROM 7)::int % 2 = 0, t.publication_date + 20,
            CASE WHEN t.publication_date IS NULL THEN NULL ELSE 'actual' END
       FROM tenders t WHERE t.source_ref LIKE 'party-%'`,
    [companies],
  );
  await t.db.query(
    `INSERT INTO awards (tender_id, buyer_id, award_key, source, award_date, winner_company_id, value, currency)
     SELECT t.id, t.buyer_id, 'lot-2', 'placsp', t.publication_date + 12,
            ($1::bigint[])[1 + (substring(t.source_ref FROM 7)::int + 1) % 3], 500, 'EUR'
       FROM tenders t WHERE t.source_ref LIKE 'party-%' AND substring(t.source_ref FROM 7)::int % 5 = 0`,
    [companies],
  );
});

function filters(kind: SearchKind, party: Partial<SearchFilters>, offset: number): SearchFilters {
  const none = {
    q: null,
    cpvPrefix: null,
    buyerIds: null,
    companyIds: null,
    region: null,
    from: null,
    to: null,
  };
  return { kind, ...none, ...party, limit: 40, offset };
}

/** Every row of the parties (and dates), in list order: date descending with undated rows last, then id. */
async function reference(kind: SearchKind, party: Partial<SearchFilters>): Promise<Row[]> {
  const ids = party.buyerIds ?? party.companyIds ?? [];
  const named = party.buyerIds
    ? "buyer_id = ANY($2::bigint[])"
    : kind === "tender"
      ? "company_ids && $2::bigint[]" // a tender row holds all of its winners
      : "company_id = ANY($2::bigint[])";
  const { rows } = await t.db.query<Row>(
    `SELECT id, date::text AS date FROM search_rows
      WHERE kind = $1 AND ${named}
        AND ($3::date IS NULL OR date >= $3) AND ($4::date IS NULL OR date <= $4)`,
    [kind, ids, party.from ?? null, party.to ?? null],
  );
  return rows
    .map((r) => ({ id: Number(r.id), date: r.date }))
    .sort((a, b) => {
      if (a.date !== b.date) {
        if (a.date === null || b.date === null) {
          return a.date === null ? 1 : -1;
        }
        return a.date < b.date ? 1 : -1;
      }
      return b.id - a.id;
    });
}

describe("search by named parties alone", () => {
  it("pages through the parties' rows in list order, as one read of all of them would", async () => {
    const [big, second, third] = buyers as [number, number, number];
    const cases: [SearchKind, Partial<SearchFilters>][] = [
      ["award", { buyerIds: [big, second, third] }],
      ["award", { buyerIds: [third, second] }],
      ["tender", { buyerIds: [second, big] }],
      ["contract", { buyerIds: [big] }],
      ["award", { buyerIds: [big, big, third] }], // a party named twice counts once
      ["award", { buyerIds: [big, third], from: "2024-03-01", to: "2024-06-30" }],
      ["award", { companyIds: companies }],
      ["contract", { companyIds: [companies[0] as number, companies[2] as number] }],
    ];
    await expectListOrder(cases);
    // The corpus exercises what the merge must get right: more rows than the window for the big buyer alone,
    // undated rows, and rows of different buyers on the same day.
    expect((await reference("award", { buyerIds: [big] })).length).toBeGreaterThan(WINDOW + 1);
    expect((await reference("tender", { buyerIds: buyers })).some((r) => r.date === null)).toBe(true);
  });

  it("reads a company's tenders from the winners relation, kept with the search rows", async () => {
    const [first, second, third] = companies as [number, number, number];
    const cases: [SearchKind, Partial<SearchFilters>][] = [
      ["tender", { companyIds: companies }], // tenders with two named winners count once
      ["tender", { companyIds: [first] }],
      ["tender", { companyIds: [third, second, third], from: "2024-02-01", to: "2024-08-31" }],
    ];
    await expectListOrder(cases);
    // Every 5th tender has two winners, some of them both named above; and a company has more tenders than the
    // window.
    const twice = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM search_rows WHERE kind = 'tender' AND cardinality(company_ids) = 2",
    );
    expect(twice.rows[0]?.n).toBeGreaterThan(0);
    expect((await reference("tender", { companyIds: [first] })).length).toBeGreaterThan(WINDOW + 1);

    // The winners follow the search rows in the same transaction: a second lot superseded (its company no longer
    // won the tender), a first lot moved to another company, a tender withdrawn.
    await t.db.query(
      `UPDATE awards SET superseded = true
        WHERE award_key = 'lot-2' AND tender_id IN (SELECT id FROM tenders WHERE source_ref IN ('party-10', 'party-20'))`,
    );
    await t.db.query(
      "UPDATE awards SET winner_company_id = $1 WHERE award_key = 'lot-1' AND tender_id = (SELECT id FROM tenders WHERE source_ref = 'party-30')",
      [third],
    );
    await t.db.query(
      "UPDATE tenders SET deleted_at = now(), deletion_reason = 'withdrawn' WHERE source_ref = 'party-40'",
    );
    await expectListOrder(cases);
    const stale = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n
         FROM search_tender_winners w
         LEFT JOIN search_rows s ON s.kind = 'tender' AND s.id = w.tender_id AND w.company_id = ANY(s.company_ids)
        WHERE s.id IS NULL`,
    );
    expect(stale.rows[0]?.n).toBe(0);
  });
});

/** Every page of each case, with a window of WINDOW rows, is the reference's. */
async function expectListOrder(cases: [SearchKind, Partial<SearchFilters>][]): Promise<void> {
  for (const [kind, party] of cases) {
    const all = await reference(kind, party);
    const window = all.slice(0, WINDOW);
    for (const offset of [0, 40, 120, 160]) {
      const page = await searchPage(t.db, filters(kind, party, offset), { window: WINDOW });
      const label = `${kind} ${JSON.stringify(party)} @${offset}`;
      expect(page.matched, label).toBe(Math.min(all.length, WINDOW + 1));
      expect(page.ids, label).toEqual(window.slice(offset, offset + 40).map((r) => r.id));
    }
  }
}
