import { beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../src/db/client.ts";
import { type DateProbe, planTextRead, probeAnswered, probeShares } from "../../src/db/queries/date-probe.ts";
import { matchedTenderWindow, type ResearchScope } from "../../src/db/queries/research.ts";
import { type SearchFilters, type SearchKind, searchPage } from "../../src/db/queries/search.ts";
import { useTestDb } from "../helpers/db.ts";

/**
 * "Newest rows first" (migration 0025, db/queries/date-probe.ts): a text search sized from the counts and the
 * statistics asks for the matches of the newest years and quarters only, and its answer must be the plain
 * statement's answer, through the probe when those quarters hold the window and through the plain statement when
 * they do not. The corpus is small, so the window is 400 rows here instead of search's 10,000 (the rule does not
 * depend on the size): a probe is planned once 1.5 x 401 = 601.5 matches are expected.
 */
const t = useTestDb();
const WINDOW = 400;

/** Every statement a read sends (and its parameters), to tell which path answered. */
function recording(db: Queryable): { db: Queryable; statements: string[]; params: (readonly unknown[])[] } {
  const statements: string[] = [];
  const params: (readonly unknown[])[] = [];
  return {
    statements,
    params,
    db: {
      query(sql, values) {
        statements.push(sql);
        params.push(values ?? []);
        return db.query(sql, values);
      },
      exec: (sql) => db.exec(sql),
    },
  };
}

/** The quarters a probe's terms name, sorted ('~tender2022' is its four quarters). */
function quartersOf(terms: string): string[] {
  return terms
    .split(" | ")
    .flatMap((term) => (/q\d'$/.test(term) ? [term] : [1, 2, 3, 4].map((q) => term.replace(/'$/, `q${q}'`))))
    .sort();
}

function filters(kind: SearchKind, q: string, offset = 0): SearchFilters {
  const none = { cpvPrefix: null, buyerIds: null, companyIds: null, region: null, from: null, to: null };
  return { kind, q, ...none, limit: 100, offset };
}

beforeAll(async () => {
  // Tender g, each with one award 30 days later (8,000 search rows: 4,000 tender, 4,000 award):
  // - old, g = 1..2,000: one a day from 2018-01-01 to 2023-06-23 (about 91 a quarter), buyer A;
  // - new, g = 2,001..4,000: ten a day from 2024-03-01 to 2024-09-16 (2024 Q1 310, Q2 910, Q3 780), buyer B.
  // Every text says "plataforma"; "ciberseguridad" every fifth (g % 5 = 0); "mantenimiento" only the oldest
  // 700 (to 2019-12-01); "soporte" every third new one; "gestión documental" 7 in 20 (g % 20 < 7); "auditoría"
  // every fourth old one and every sixth new one (rarer in the newest quarters than overall).
  const { rows } = await t.db.query<{ id: number }>(
    `INSERT INTO buyers (name, name_norm) VALUES ('Ayuntamiento Antiguo', 'ayuntamiento antiguo'),
                                                 ('Consejería Nueva', 'consejeria nueva') RETURNING id`,
  );
  const [oldBuyer, newBuyer] = rows.map((r) => Number(r.id));
  await t.db.query(
    `INSERT INTO tenders (source, source_ref, title, description, publication_date, cpv_all, nuts, buyer_id,
                          upstream_updated, raw_hash)
     SELECT 'placsp', 'probe-' || g, 'Servicio número ' || g,
            'Contrato de la plataforma'
              || CASE WHEN g % 5 = 0 THEN ' de ciberseguridad' ELSE '' END
              || CASE WHEN g <= 700 THEN ' con mantenimiento' ELSE '' END
              || CASE WHEN g > 2000 AND g % 3 = 0 THEN ' y soporte' ELSE '' END
              || CASE WHEN g % 20 < 7 THEN ' con gestión documental' ELSE '' END
              || CASE WHEN (g <= 2000 AND g % 4 = 0) OR (g > 2000 AND g % 6 = 0) THEN ' y auditoría' ELSE '' END,
            CASE WHEN g <= 2000 THEN date '2018-01-01' + (g - 1) ELSE date '2024-03-01' + (g - 2001) / 10 END,
            ARRAY['72000000'], 'ES300', CASE WHEN g <= 2000 THEN $1::bigint ELSE $2::bigint END, now(), 'h' || g
       FROM generate_series(1, 4000) AS g`,
    [oldBuyer, newBuyer],
  );
  await t.db.query(
    `INSERT INTO awards (tender_id, award_key, source, award_date, value, currency)
     SELECT id, 'lot-1', 'placsp', publication_date + 30, 1000, 'EUR' FROM tenders WHERE source_ref LIKE 'probe-%'`,
  );
  // The probe is sized from the planner's statistics; PostgreSQL's autovacuum keeps them, here it is explicit.
  await t.db.query("ANALYZE search_rows");
}, 120_000);

describe("search reads the newest rows first for a word of middling frequency", () => {
  it("keeps the rows per kind and quarter that size a probe", async () => {
    const { rows } = await t.db.query<{ quarter: string; rows: number }>(
      `SELECT quarter::text, rows::int FROM search_row_quarters WHERE kind = 'tender' AND quarter >= '2023-01-01'
        ORDER BY quarter`,
    );
    expect(rows).toEqual([
      { quarter: "2023-01-01", rows: 90 },
      { quarter: "2023-04-01", rows: 84 }, // to 2023-06-23
      { quarter: "2024-01-01", rows: 310 },
      { quarter: "2024-04-01", rows: 910 },
      { quarter: "2024-07-01", rows: 780 },
    ]);
    // A row moved to another quarter, and a row deleted, move the counts with them.
    await t.db.query("UPDATE tenders SET publication_date = '2024-09-16' WHERE source_ref = 'probe-2001'");
    await t.db.query(
      "DELETE FROM awards WHERE tender_id = (SELECT id FROM tenders WHERE source_ref = 'probe-4000')",
    );
    const { rows: after } = await t.db.query<{ kind: string; quarter: string; rows: number }>(
      `SELECT kind, quarter::text, rows::int FROM search_row_quarters WHERE quarter >= '2024-01-01'
        ORDER BY kind, quarter`,
    );
    // Awards are dated 30 days after their tender: 2024-03-31 (10), April to June (910), July to September
    // (920), October 1 to 16 (160, less the one deleted).
    expect(after).toEqual([
      { kind: "award", quarter: "2024-01-01", rows: 10 },
      { kind: "award", quarter: "2024-04-01", rows: 910 },
      { kind: "award", quarter: "2024-07-01", rows: 920 },
      { kind: "award", quarter: "2024-10-01", rows: 159 },
      { kind: "tender", quarter: "2024-01-01", rows: 309 },
      { kind: "tender", quarter: "2024-04-01", rows: 910 },
      { kind: "tender", quarter: "2024-07-01", rows: 781 },
    ]);
    await t.db.query("UPDATE tenders SET publication_date = '2024-03-01' WHERE source_ref = 'probe-2001'");
    await t.db.query(
      `INSERT INTO awards (tender_id, award_key, source, award_date, value, currency)
       SELECT id, 'lot-1', 'placsp', publication_date + 30, 1000, 'EUR' FROM tenders WHERE source_ref = 'probe-4000'`,
    );
  });

  it("plans a probe from the counts and statistics only for words of middling frequency", async () => {
    const planDateProbes = async (q: string, wanted: number) =>
      (await planTextRead(t.db, "tender", q, wanted, { probe: true, indexedWords: false })).probes;
    // "ciberseguridad" is in 1,600 of the 8,000 rows (share 0.2). Expected tender matches, newest quarter first:
    // 2024 Q3 780 x 0.2 = 156, Q2 182 (338), Q1 62 (400), then the old quarters at about 18 each: 2023 Q2 16.8,
    // Q1 18 (434.8), 2022 Q4..Q1 18.4 + 18.4 + 18.2 + 18 (507.8), 2021 the same (580.8), 2020 Q4 18.4 (599.2),
    // 2020 Q3 18.4 (617.6): at least 601.5, so from 2020-07-01: whole years 2024 to 2021, then 2020's Q4 and Q3.
    // The near part reaches 1.1 x 401 = 441.1 with 2022 Q4 (453.2); the far part is the rest.
    expect(await planDateProbes("ciberseguridad", WINDOW + 1)).toEqual([
      {
        terms:
          "'~tender2024' | '~tender2023' | '~tender2022' | '~tender2021' | '~tender2020q4' | '~tender2020q3'",
        from: "2020-07-01",
        newest: "2024-09-16",
        near: {
          terms: "'~tender2024' | '~tender2023' | '~tender2022q4'",
          farTerms:
            "'~tender2022q3' | '~tender2022q2' | '~tender2022q1' | '~tender2021' | '~tender2020q4' | '~tender2020q3'",
        },
      },
    ]);
    // "plataforma" is in every text: the plain read meets the window in its first rows.
    expect(await planDateProbes("plataforma", WINDOW + 1)).toEqual([]);
    // A word nowhere in the statistics is rare: no probe.
    expect(await planDateProbes("ascensores", WINDOW + 1)).toEqual([]);
    // Under 601.5 expected matches in all: no probe (the full window is not worth sizing).
    expect(await planDateProbes("ciberseguridad", 600)).toEqual([]);
    // "gestión documental": two words always together, each in 35 % of the texts. Taken as independent (share
    // 0.1225) they are expected 490 times among the 4,000 tender rows, under 601.5: no probe at that share. As
    // words that come together (sqrt(0.35 x 0.1225) = 0.207, 828 expected) they are worth one.
    const together = await planDateProbes("gestión documental", WINDOW + 1);
    expect(together).toHaveLength(1);
  });

  it("answers every page exactly as the plain statement does, through the probe or after it", async () => {
    const cases: [SearchKind, string, "probe" | "fallback" | "plain"][] = [
      ["tender", "ciberseguridad", "probe"],
      ["award", "ciberseguridad", "probe"],
      ["tender", "soporte", "probe"],
      // Shares multiply (0.167 x 1): a phrase is sized as if its words were independent.
      ["award", "soporte plataforma", "probe"],
      // Only the oldest texts say "mantenimiento" (700 tenders, share 0.175), but the counts cannot tell: taking
      // words and dates as independent, the new quarters are expected to hold 2,000 x 0.175 = 350 of its
      // matches and the old quarters back to 2019 Q3 the rest of 601.5. From 2019-07-01 they hold 154
      // (tenders 547 to 700): the plain statement answers.
      ["tender", "mantenimiento", "fallback"],
      ["tender", "gestión documental", "probe"],
      // Rarer in the newest quarters than overall (checked below): the near quarters fall short, the far answer.
      ["tender", "auditoría", "probe"],
      ["award", "auditoría", "probe"],
      ["tender", "plataforma", "plain"],
    ];
    for (const [kind, q, path] of cases) {
      for (const offset of [0, 200, 350, 400]) {
        const spy = recording(t.db);
        const probed = await searchPage(spy.db, filters(kind, q, offset), { window: WINDOW });
        const plain = await searchPage(t.db, filters(kind, q, offset), { window: WINDOW, probe: false });
        expect(probed, `${kind} ${q} ${offset}`).toEqual(plain);
        expect(probed.matched, `${kind} ${q}`).toBe(WINDOW + 1);
        // A probed statement asks for the words and, as a second condition, the date terms.
        const probes = spy.statements.filter((sql) =>
          /s\.tsv @@ .+ AND s\.tsv @@ \$\d+::tsquery/.test(sql),
        ).length;
        expect(probes, `${kind} ${q}: probed statements`).toBe(path === "plain" ? 0 : 1);
        // Plan, then the probe; a fallback adds the plain statement; no probe planned is plan + plain.
        expect(spy.statements.length, `${kind} ${q}: statements`).toBe(path === "fallback" ? 3 : 2);
      }
    }
  });

  it("reads a probe's far quarters only when its near quarters hold too few matches", async () => {
    const [probe] = (
      await planTextRead(t.db, "tender", "auditoría", WINDOW + 1, { probe: true, indexedWords: false })
    ).probes;
    const [ciber] = (
      await planTextRead(t.db, "tender", "ciberseguridad", WINDOW + 1, { probe: true, indexedWords: false })
    ).probes;
    const matches = async (q: string, terms: string) =>
      Number(
        (
          await t.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM search_rows s
              WHERE s.kind = 'tender' AND s.tsv @@ plainto_tsquery('spanish', immutable_unaccent($1))
                AND s.tsv @@ $2::tsquery`,
            [q, terms],
          )
        ).rows[0]?.n,
      );
    // "auditoría": the near quarters hold 377 (333 new, 44 of 2023), the whole probe 559 (from 2021).
    expect(probe?.near).not.toBeNull();
    expect(await matches("auditoría", probe?.near?.terms ?? "")).toBeLessThan(WINDOW + 1);
    expect(await matches("auditoría", probe?.terms ?? "")).toBeGreaterThanOrEqual(WINDOW + 1);
    // "ciberseguridad": the near quarters alone hold the window.
    expect(await matches("ciberseguridad", ciber?.near?.terms ?? "")).toBeGreaterThanOrEqual(WINDOW + 1);
    // The far quarters' scan runs only when the near ones fall short, in search and in research's tender window
    // when no buyer is named.
    const reads = {
      search: (db: Queryable, q: string) => searchPage(db, filters("tender", q), { window: WINDOW }),
      research: (db: Queryable, q: string) =>
        matchedTenderWindow(
          db,
          {
            q,
            buyerIds: [],
            companyIds: [],
            today: "2024-09-17",
            now: new Date("2024-09-17T10:00:00Z"),
            limit: 10,
          },
          { window: WINDOW },
        ),
    };
    for (const [read, q, farRead] of [
      ["search", "auditoría", true],
      ["search", "ciberseguridad", false],
      ["research", "auditoría", true],
      ["research", "ciberseguridad", false],
    ] as const) {
      const spy = recording(t.db);
      await reads[read](spy.db, q);
      const plan = (
        await t.db.query<{ "QUERY PLAN": string }>(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${spy.statements[1]}`,
          spy.params[1],
        )
      ).rows.map((r) => r["QUERY PLAN"]);
      const scans = plan.filter((line) => line.includes("Scan on search_rows s"));
      expect(scans, `${read} ${q}: ${plan.join("\n")}`).toHaveLength(2);
      expect(scans[1]?.includes("never executed"), `${read} ${q}`).toBe(!farRead);
      expect(scans[0]?.includes("never executed"), `${read} ${q}`).toBe(false);
    }
    // Near and far are the probe's quarters, each once.
    for (const p of [probe, ciber]) {
      expect(quartersOf(`${p?.near?.terms} | ${p?.near?.farTerms}`)).toEqual(quartersOf(p?.terms ?? ""));
    }
  });

  it("gives research's tender window the same rows, with buyers named like the topic read whole", async () => {
    const { rows } = await t.db.query<{ id: number; name: string }>(
      "SELECT id, name FROM buyers ORDER BY id",
    );
    const [oldBuyer, newBuyer] = rows.map((r) => Number(r.id));
    const scope = (q: string, buyerIds: number[]): ResearchScope => ({
      q,
      buyerIds,
      companyIds: [],
      today: "2024-09-17",
      now: new Date("2024-09-17T10:00:00Z"),
      limit: 10,
    });
    for (const [q, buyers] of [
      ["ciberseguridad", []],
      ["ciberseguridad", [oldBuyer]],
      ["soporte", [newBuyer]],
      ["mantenimiento", []],
      ["mantenimiento", [newBuyer]],
      // Its near quarters fall short: the far ones answer in the same statement.
      ["auditoría", []],
      ["auditoría", [newBuyer]],
    ] as [string, number[]][]) {
      const probed = await matchedTenderWindow(t.db, scope(q, buyers), { window: WINDOW });
      const plain = await matchedTenderWindow(t.db, scope(q, buyers), { window: WINDOW, probe: false });
      expect(probed, `${q} ${buyers.join(",")}`).toEqual(plain);
      expect(probed.ids).toHaveLength(WINDOW + 1);
    }
  });

  it("sizes a phrase first as words that come together, then as independent words", () => {
    expect(probeShares([0.2])).toEqual([0.2]);
    // "mantenimiento de software" at a million awards: 0.242 and 0.132; it matches 0.057 of the rows.
    const [together, independent] = probeShares([0.242, 0.132]);
    expect(independent).toBeCloseTo(0.0319, 4);
    expect(together).toBeCloseTo(Math.sqrt(0.132 * 0.242 * 0.132), 6); // 0.065
    // A word in every row changes nothing: one share.
    expect(probeShares([0.167, 1])).toEqual([0.167]);
    // A word outside the statistics (share 0): rare, no probe.
    expect(probeShares([0.3, 0])).toEqual([]);
    expect(probeShares([])).toEqual([]);
  });

  it("accepts a probed answer only when it proves it holds the newest rows", () => {
    const probe: DateProbe = {
      terms: "'~award2024' | '~award2023q4'",
      from: "2023-10-01",
      newest: "2024-09-16",
      near: null,
    };
    const full = { matched: WINDOW + 1, lastDate: "2023-10-01", newest: "2024-09-16" };
    expect(probeAnswered(probe, full, WINDOW + 1)).toBe(true);
    // Too few rows in the quarters asked for: older matches may belong to the window.
    expect(probeAnswered(probe, { ...full, matched: WINDOW }, WINDOW + 1)).toBe(false);
    // A row matched otherwise (a named buyer) older than the quarters: an older text match could come before it.
    expect(probeAnswered(probe, { ...full, lastDate: "2023-09-30" }, WINDOW + 1)).toBe(false);
    expect(probeAnswered(probe, { ...full, lastDate: null }, WINDOW + 1)).toBe(false);
    // A row of a later year appeared after planning: the probe has no term for it.
    expect(probeAnswered(probe, { ...full, newest: "2025-01-01" }, WINDOW + 1)).toBe(false);
    // A date whose year has five digits (bad data) compares wrongly as text: never accepted.
    expect(probeAnswered(probe, { ...full, newest: "12024-01-01" }, WINDOW + 1)).toBe(false);
    // Later, but in the newest year planned: its year's term is in the probe.
    expect(probeAnswered(probe, { ...full, newest: "2024-12-31" }, WINDOW + 1)).toBe(true);
  });
});
