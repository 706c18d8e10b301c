import { beforeAll, describe, expect, it } from "vitest";
import { envelopeSchema } from "../../src/http/envelope.ts";
import { OpportunitySchema } from "../../src/http/routes/companies/schema.ts";
import { buildTestApp, devToken, getJson, testClock } from "../helpers/app.ts";
import { useTestDb } from "../helpers/db.ts";
import {
  insertAward,
  insertBuyer,
  insertCompany,
  insertTender,
  type TenderSeed,
} from "../helpers/factories.ts";

const t = useTestDb();

/*
 * The domain clock reads 2026-06-01T10:00Z (12:00 in Madrid): "today" is 2026-06-01, the window starts on
 * 2026-03-03 (90 days back).
 *
 * History of company X (what its opportunities are matched against):
 *   A1: buyer B, CPV 72212000, 100000 EUR (X's own)
 *   A2: buyer B, CPV 72212100,  60000 EUR (X's own)
 *   A3: buyer D, CPV 48000000,  80000 EUR (won by the joint venture U, of which X and Y are members)
 *   A4: buyer E, CPV 30000000,  50000 EUR (Y's own: not X's history)
 *   AW: buyer B, CPV 72212000, no value   (X's own, on the recent tender XW: excluded from the list below)
 * Profile: buyers {B, D}; CPVs {48000000, 72212000, 72212100}, so prefixes of 8 digits {48000000, 72212000,
 * 72212100}, 6 {480000, 722120, 722121}, 4 {4800, 7221}, 2 {48, 72}; median of the EUR values
 * {60000, 80000, 100000} = 80000.
 *
 * Weights: same buyer 25; CPV 35 / 25 / 15 / 5 at 8 / 6 / 4 / 2 digits; recency 10 - floor(age / 9), at
 * least 0; value 10 within a factor 2 of 80000 ([40000, 160000]), 5 within a factor 4 ([20000, 320000]);
 * renewal 20 when re-tendered by this tender, else 10 for an open signal whose window holds the publication.
 *
 * Open tenders (status PUB unless said otherwise, no award):
 *   O8:  B, 72212000, 2026-05-01 (age 31), no value, re-tenders signal S1: 25 + 35 + (10-3) + 0 + 20 = 87
 *   O7:  E, 72212000, 2026-05-23 (age 9), 90000, open signal S2 of E in 72: 0 + 35 + (10-1) + 10 + 10 = 64
 *   O6:  E, 48000000 (the UTE's CPV), 2026-05-31 (age 1), 160000:        0 + 35 + 10 + 10 + 0 = 55
 *   O11: C, 72212000, 2026-05-23 (age 9), 90000 (O2's twin, higher id):  0 + 35 + 9 + 10 + 0 = 54
 *   O2:  C, 72212000, 2026-05-23 (age 9), 90000:                         0 + 35 + 9 + 10 + 0 = 54
 *   O3:  C, 72212190 (6 digits: 722121), 2026-05-14 (age 18), 300000:   0 + 25 + (10-2) + 5 + 0 = 38
 *   O1:  B, 79000000 (another division), 2026-05-30 (age 2), no value:  25 + 0 + 10 + 0 + 0 = 35
 *   O9:  D (the UTE's buyer), 30000000, 2025-12-01 (age 182: outside the window) with a deadline ahead
 *        (2026-06-15T12:00Z):                                           25 + 0 + max(0, 10-20) + 0 + 0 = 25
 *   O4:  C, 72210000 (4 digits: 7221), 2026-04-02 (age 60), 20000:       0 + 15 + (10-6) + 5 + 0 = 24
 *   O10: C, 72500000 (2 digits), status evaluation (deadline passed), 2026-05-27 (age 5), no value: 0 + 5 + 10 = 15
 *   O5:  C, 72500000 (2 digits), 2026-03-05 (age 88), 1000000 (over 4x): 0 + 5 + (10-9) + 0 + 0 = 6
 * Signals that add nothing: S3 (C, division 72, window 2026-01-01..2026-02-28: holds no C publication date),
 * S4 (C, division 72, window holds O2's date but already re-tendered by the history tender H1).
 *
 * Not listed:
 *   XOLD: B, 72212000, 2026-01-15 (age 137) with a past deadline (2026-02-15): outside the window
 *   XW:   B, 72212000, 2026-05-20: X already won it (AW)
 *   XANUL: B, 72212000, 2026-05-25, status cancelled (PLACSP ANUL);  XDEL: the same, open but tombstoned
 *   XADJ: B, 72212000, 2026-05-25, status awarded (PLACSP ADJ, result not yet loaded)
 *   XTED: TED notice of C, 72212000, 2026-05-23, linked to its PLACSP procedure O2
 *   XCAN: TED contract award notice (notice type award-notice) of B, 72212000, 2026-05-28, no award row
 *   XY:   E, 30000000 (Y's own history, not X's), 2026-05-28
 *   the history tenders H1 to H4 (2024, awarded)
 */
const NOW = "2026-06-01T10:00:00.000Z";

const ids = {
  x: 0,
  y: 0,
  ute: 0,
  z: 0,
  b: 0,
  c: 0,
  d: 0,
  e: 0,
  h1: 0,
  a1: 0,
} as Record<string, number>;
const id = (name: string): number => ids[name] ?? Number.NaN;

/** A tender with its status and notice type (the factory's defaults describe an awarded PLACSP folder). */
async function tender(
  name: string,
  seed: Omit<TenderSeed, "sourceRef"> & {
    /** Status in the common vocabulary; `open` (PLACSP PUB) when not given. */
    status?: string | null;
    noticeType?: string;
    deletion?: string;
    linkedTo?: number;
  },
): Promise<number> {
  const tenderId = await insertTender(t.db, {
    sourceRef: `https://crafted.invalid/opp/${name}`,
    url: `https://crafted.invalid/detalle/${name}`,
    title: `Tender ${name}`,
    ...seed,
  });
  await t.db.query(
    `UPDATE tenders SET status = $2, notice_type = $3, linked_to = $4,
                        deleted_at = CASE WHEN $5::text IS NULL THEN NULL ELSE now() END, deletion_reason = $5
      WHERE id = $1`,
    [
      tenderId,
      seed.status === undefined ? "open" : seed.status,
      seed.noticeType ?? "contract-notice",
      seed.linkedTo ?? null,
      seed.deletion ?? null,
    ],
  );
  ids[name] = tenderId;
  return tenderId;
}

/** An award as ingestion writes it: with its tender's buyer and CPV (the factory leaves both null). */
async function award(tenderId: number, winnerId: number, value: number | null): Promise<number> {
  const awardId = await insertAward(t.db, { tenderId, winnerId, value, awardDate: "2024-06-01" });
  await t.db.query(
    `UPDATE awards a SET buyer_id = t.buyer_id, cpv = t.cpv_main FROM tenders t
      WHERE a.id = $1 AND t.id = a.tender_id`,
    [awardId],
  );
  return awardId;
}

let signalId = 0;
async function signal(s: {
  buyer: number;
  division: string;
  windowStart: string;
  windowEnd: string;
  retenderedBy?: number;
}): Promise<void> {
  signalId += 1;
  await t.db.query(
    `INSERT INTO renewal_signals (id, basis_key, signal_type, cpv, cpv_division, buyer_id, tender_id, award_id,
                                  predicted_date, window_start, window_end, confidence, retendered_by,
                                  evidence_tender_ids, basis)
     VALUES ($1, $2, 'recurrence', $3 || '000000', $3, $4, $5, $6, $7, $7, $8, 'medium', $9, ARRAY[$5]::bigint[],
             '{"signal_type": "recurrence"}')`,
    [
      signalId,
      `test:${signalId}`,
      s.division,
      s.buyer,
      id("h1"),
      id("a1"),
      s.windowStart,
      s.windowEnd,
      s.retenderedBy ?? null,
    ],
  );
}

beforeAll(async () => {
  Object.assign(ids, {
    x: await insertCompany(t.db, "X SISTEMAS SL", "B00000001"),
    y: await insertCompany(t.db, "Y SOFTWARE SL", "B00000002"),
    ute: await insertCompany(t.db, "UTE X Y", "U00000003"),
    z: await insertCompany(t.db, "Z SIN HISTORIA SL", "B00000004"),
    b: await insertBuyer(t.db, "Buyer B"),
    c: await insertBuyer(t.db, "Buyer C"),
    d: await insertBuyer(t.db, "Buyer D"),
    e: await insertBuyer(t.db, "Buyer E"),
  });
  await t.db.query("UPDATE companies SET is_joint_venture = true WHERE id = $1", [id("ute")]);
  await t.db.query("INSERT INTO company_members (group_id, member_id) VALUES ($1, $2), ($1, $3)", [
    id("ute"),
    id("x"),
    id("y"),
  ]);

  // History (2024, awarded: never opportunities themselves).
  const old = { publicationDate: "2024-03-01", status: "signed" };
  ids.a1 = await award(
    await tender("h1", { ...old, buyerId: id("b"), cpvAll: ["72212000"] }),
    id("x"),
    100000,
  );
  await award(await tender("h2", { ...old, buyerId: id("b"), cpvAll: ["72212100"] }), id("x"), 60000);
  await award(await tender("h3", { ...old, buyerId: id("d"), cpvAll: ["48000000"] }), id("ute"), 80000);
  await award(await tender("h4", { ...old, buyerId: id("e"), cpvAll: ["30000000"] }), id("y"), 50000);

  // Open tenders, in id order O1 .. O11 (O11 after O2, so it comes first among the two at 54).
  await tender("o1", { buyerId: id("b"), cpvAll: ["79000000"], publicationDate: "2026-05-30" });
  await tender("o2", {
    buyerId: id("c"),
    cpvAll: ["72212000"],
    publicationDate: "2026-05-23",
    estimatedValue: 90000,
  });
  await tender("o3", {
    buyerId: id("c"),
    cpvAll: ["72212190"],
    publicationDate: "2026-05-14",
    estimatedValue: 300000,
  });
  await tender("o4", {
    buyerId: id("c"),
    cpvAll: ["72210000"],
    publicationDate: "2026-04-02",
    estimatedValue: 20000,
  });
  await tender("o5", {
    buyerId: id("c"),
    cpvAll: ["72500000"],
    publicationDate: "2026-03-05",
    estimatedValue: 1000000,
  });
  await tender("o6", {
    buyerId: id("e"),
    cpvAll: ["48000000"],
    publicationDate: "2026-05-31",
    estimatedValue: 160000,
  });
  await tender("o7", {
    buyerId: id("e"),
    cpvAll: ["72212000"],
    publicationDate: "2026-05-23",
    estimatedValue: 90000,
  });
  await tender("o8", { buyerId: id("b"), cpvAll: ["72212000"], publicationDate: "2026-05-01" });
  await tender("o9", {
    buyerId: id("d"),
    cpvAll: ["30000000"],
    publicationDate: "2025-12-01",
    deadline: "2026-06-15T12:00:00Z",
  });
  await tender("o10", {
    buyerId: id("c"),
    cpvAll: ["72500000"],
    publicationDate: "2026-05-27",
    deadline: "2026-05-29T13:00:00Z",
    status: "evaluation",
  });
  await tender("o11", {
    buyerId: id("c"),
    cpvAll: ["72212000"],
    publicationDate: "2026-05-23",
    estimatedValue: 90000,
  });

  // Not opportunities.
  const inB = { buyerId: id("b"), cpvAll: ["72212000"] };
  await tender("xold", { ...inB, publicationDate: "2026-01-15", deadline: "2026-02-15T13:00:00Z" });
  await award(await tender("xw", { ...inB, publicationDate: "2026-05-20" }), id("x"), null);
  await tender("xanul", { ...inB, publicationDate: "2026-05-25", status: "cancelled" });
  await tender("xdel", { ...inB, publicationDate: "2026-05-25", deletion: "ANULADA" });
  await tender("xadj", { ...inB, publicationDate: "2026-05-25", status: "awarded" });
  await tender("xted", {
    source: "ted",
    buyerId: id("c"),
    cpvAll: ["72212000"],
    publicationDate: "2026-05-23",
    status: null,
    noticeType: "contract-notice",
    linkedTo: id("o2"),
  });
  await tender("xcan", {
    ...inB,
    source: "ted",
    publicationDate: "2026-05-28",
    // the status a TED award notice would have is left out, so that the notice type alone excludes it
    status: null,
    noticeType: "award-notice",
  });
  await tender("xy", { buyerId: id("e"), cpvAll: ["30000000"], publicationDate: "2026-05-28" });

  // Renewal signals.
  await signal({
    buyer: id("b"),
    division: "72",
    windowStart: "2026-01-01",
    windowEnd: "2026-03-31",
    retenderedBy: id("o8"),
  }); // S1
  await signal({ buyer: id("e"), division: "72", windowStart: "2026-05-01", windowEnd: "2026-07-31" }); // S2
  await signal({ buyer: id("c"), division: "72", windowStart: "2026-01-01", windowEnd: "2026-02-28" }); // S3
  await signal({
    buyer: id("c"),
    division: "72",
    windowStart: "2026-05-01",
    windowEnd: "2026-07-31",
    retenderedBy: id("h1"),
  }); // S4
});

const ENDPOINT = "GET /v1/companies/:id/opportunities";

async function getOpportunities(companyId: number | string, query = "") {
  const { app } = buildTestApp({ db: t.db, now: testClock(new Date(NOW)) });
  return getJson(app, `/v1/companies/${companyId}/opportunities${query}`, {
    "x-payment": await devToken(app, ENDPOINT),
  });
}

interface Row {
  id: number;
  score: number;
  same_buyer: boolean;
  same_cpv: boolean;
}

/** The expected list, best first, with each score and flag as computed in the header comment. */
const EXPECTED: [name: string, score: number, sameBuyer: boolean, sameCpv: boolean][] = [
  ["o8", 87, true, true],
  ["o7", 64, false, true],
  ["o6", 55, false, true],
  ["o11", 54, false, true],
  ["o2", 54, false, true],
  ["o3", 38, false, true],
  ["o1", 35, true, false],
  ["o9", 25, true, false],
  ["o4", 24, false, true],
  ["o10", 15, false, true],
  ["o5", 6, false, true],
];

describe("GET /v1/companies/{id}/opportunities", () => {
  it("scores the open tenders that fit the history, best first, as computed by hand", async () => {
    const { res, body } = await getOpportunities(id("x"));
    expect(res.status).toBe(200);
    expect(envelopeSchema(OpportunitySchema.array()).safeParse(body).success).toBe(true);
    const data = body.data as Row[];
    expect(data.map((r) => [r.id, r.score, r.same_buyer, r.same_cpv])).toEqual(
      EXPECTED.map(([name, score, sameBuyer, sameCpv]) => [id(name), score, sameBuyer, sameCpv]),
    );
    // O11 and O2 tie at 54: the higher id first.
    expect(id("o11")).toBeGreaterThan(id("o2"));
    expect(body.meta).toMatchObject({ page: 1, total: 11, paid: true, price_usd: "0.10" });
    expect(body.meta).not.toHaveProperty("caveats");
    expect((body.meta as { provenance: unknown[] }).provenance).toEqual(
      EXPECTED.map(([name]) => ({
        source: "placsp",
        source_ref: `https://crafted.invalid/opp/${name}`,
        url: `https://crafted.invalid/detalle/${name}`,
      })),
    );
  });

  it("serves exactly the spec's Opportunity fields", async () => {
    const { body } = await getOpportunities(id("x"), "?size=8");
    const data = body.data as Record<string, unknown>[];
    expect(data[0]).toEqual({
      id: id("o8"),
      source_ref: "https://crafted.invalid/opp/o8",
      title: "Tender o8",
      publication_date: "2026-05-01",
      deadline: null,
      cpv_main: "72212000",
      estimated_value: null,
      currency: "EUR",
      nuts: "ES300",
      url: "https://crafted.invalid/detalle/o8",
      buyer: { id: id("b"), name: "Buyer B" },
      score: 87,
      same_buyer: true,
      same_cpv: true,
    });
    // The old tender with a deadline ahead, matched through the joint venture's buyer.
    expect(data[7]).toMatchObject({
      id: id("o9"),
      publication_date: "2025-12-01",
      deadline: "2026-06-15T12:00:00.000Z",
      buyer: { id: id("d"), name: "Buyer D" },
    });
    expect(data[2]).toMatchObject({ id: id("o6"), estimated_value: 160000, cpv_main: "48000000" });
  });

  it("explains the formula with its weights and the company's median in meta.score_explanation", async () => {
    const { body } = await getOpportunities(id("x"), "?size=1");
    const explanation = (body.meta as { score_explanation: string }).score_explanation;
    for (const part of [
      "score (integer, 0 to 100)",
      "same_buyer 25",
      "CPV 35 / 25 / 15 / 5",
      "8 / 6 / 4 / 2 digits",
      "recency 10 minus 1 per full 9 days since publication",
      "value 10 when estimated_value (EUR) is within a factor 2 of the company's median award value (80000 EUR)",
      "5 within a factor 4",
      "renewal 20 when a renewal signal of the buyer was re-tendered by this tender, else 10",
      "joint ventures (UTE)",
      "Order: score descending, then id descending",
    ]) {
      expect(explanation).toContain(part);
    }
  });

  it("pages through the same order, with the real total; a page beyond the last is empty", async () => {
    const all = EXPECTED.map(([name]) => id(name));
    const seen: number[] = [];
    for (const page of [1, 2, 3]) {
      const { body } = await getOpportunities(id("x"), `?page=${page}&size=4`);
      expect(body.meta).toMatchObject({ page, total: 11 });
      const rows = body.data as Row[];
      expect((body.meta as { provenance: unknown[] }).provenance).toHaveLength(rows.length);
      seen.push(...rows.map((r) => r.id));
    }
    expect(seen).toEqual(all);

    const { res, body } = await getOpportunities(id("x"), "?page=4&size=4");
    expect(res.status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ page: 4, total: 11, provenance: [] });
  });

  it("matches a joint venture on its own history only, and a company without history on nothing", async () => {
    // U's history is A3 alone (buyer D, 48000000; median 80000): O9 (D: 25 + 0 + 0) and O6 (E, 48000000:
    // 0 + 35 + 10 + 10 = 55). Its members' own awards are not its history.
    const ute = await getOpportunities(id("ute"));
    expect((ute.body.data as Row[]).map((r) => [r.id, r.score])).toEqual([
      [id("o6"), 55],
      [id("o9"), 25],
    ]);
    expect(ute.body.meta).toMatchObject({ total: 2 });

    const z = await getOpportunities(id("z"));
    expect(z.res.status).toBe(200);
    expect(z.body.data).toEqual([]);
    expect(z.body.meta).toMatchObject({
      page: 1,
      total: 0,
      provenance: [],
      caveats: [
        "The company has no award with a buyer or a CPV code (its own or its joint ventures'), so no tender " +
          "can match its history.",
      ],
    });
    expect((z.body.meta as { score_explanation: string }).score_explanation).toContain(
      "unknown for this company",
    );
  });

  it("moves with the domain clock, not the wall clock", async () => {
    // On 2026-07-01 O5 (2026-03-05) is 118 days old and its deadline unknown: out of the window.
    const { app } = buildTestApp({ db: t.db, now: testClock(new Date("2026-07-01T10:00:00.000Z")) });
    const { body } = await getJson(app, `/v1/companies/${id("x")}/opportunities?size=100`, {
      "x-payment": await devToken(app, ENDPOINT),
    });
    const listed = (body.data as Row[]).map((r) => r.id);
    expect(listed).not.toContain(id("o5"));
    expect(listed).toContain(id("o8"));
  });

  it("answers 404 not_found with a hint for an unknown company", async () => {
    const { res, body } = await getOpportunities(987654);
    expect(res.status).toBe(404);
    expect(body).toEqual({
      error: {
        code: "not_found",
        message: "No company with id 987654.",
        hint: "Company ids come from GET /v1/search (field company.id) and from winner.id on awards.",
      },
    });
  });
});

describe("bad input and payment", () => {
  it.each([
    ["/v1/companies/0/opportunities", "id"],
    ["/v1/companies/abc/opportunities", "id"],
    ["/v1/companies/1.5/opportunities", "id"],
    ["/v1/companies/1/opportunities?size=0", "size"],
    ["/v1/companies/1/opportunities?size=101", "size"],
    ["/v1/companies/1/opportunities?page=0", "page"],
    ["/v1/companies/1/opportunities?page=abc", "page"],
  ])("%s -> 400 invalid_query naming %s, before any payment", async (path, name) => {
    const { app } = buildTestApp({ db: t.db });
    const { res, body } = await getJson(app, path);
    expect(res.status).toBe(400);
    const error = (body as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain(`parameter "${name}"`);
    expect(error.hint.length).toBeGreaterThan(0);
  });

  it("asks for payment (402) without one, and serves with a dev token", async () => {
    const { app } = buildTestApp({ db: t.db, now: testClock(new Date(NOW)) });
    const path = `/v1/companies/${id("x")}/opportunities`;
    const unpaid = await getJson(app, path);
    expect(unpaid.res.status).toBe(402);
    expect(unpaid.body).toMatchObject({ error: { code: "payment_required" } });
    const paid = await getJson(app, path, { "x-payment": await devToken(app, ENDPOINT) });
    expect(paid.res.status).toBe(200);
    expect(paid.body.meta).toMatchObject({ paid: true, price_usd: "0.10", total: 11 });
  });
});
