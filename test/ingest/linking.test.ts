import { beforeEach, describe, expect, it } from "vitest";
import { afterIngestRun } from "../../src/analytics/after-ingest.ts";
import type { IngestVersion } from "../../src/ingest/apply-batch.ts";
import type { NormalizedAward, NormalizedTender } from "../../src/ingest/model.ts";
import { IngestRun } from "../../src/ingest/run-context.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { buildTestApp, devToken, getJson } from "../helpers/app.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { buildPage, ingestPage, LIFECYCLE, splitFeed } from "../helpers/placsp.ts";

/**
 * PLACSP ↔ TED linking on a crafted pair. The PLACSP side is the real ISTAC lifecycle (folder 2/2025, buyer
 * NIF Q8550002C, one award to REDCA S.A. (A38210100) of 224,002.34 EUR on 2025-07-18). The TED side is built
 * as the TED normalizer would produce it and applied through the real batch path.
 */
const t = useTestDb();
const log = createLogger("silent");
const ISTAC = "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/17165996";
const ISTAC_URL =
  "https://contrataciondelestado.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=5Q16zvBfrXDE6P%2FuLemXRw%3D%3D";

beforeEach(async () => {
  await truncateAll(t.db);
  await ingestPage(t.db, { file: LIFECYCLE });
});

const REDCA = {
  name: "REDCA SA",
  nif: "A38210100",
  rawId: "A38210100",
  idScheme: null,
  country: "ES",
  isJointVenture: false,
  members: [],
};
const ISTAC_BUYER = {
  name: "Instituto Canario de Estadística",
  nif: "Q8550002C",
  rawId: "Q8550002C",
  idScheme: null,
  country: "ES",
  dir3: [],
  platformId: null,
  nuts: "ES70",
  orgType: null,
};

function tedAward(overrides: Partial<NormalizedAward> = {}): NormalizedAward {
  return {
    lot: "LOT-0000",
    resultCode: "selec-w",
    awardDate: "2025-07-18",
    winner: REDCA,
    value: 230_000, // within 10% of 224,002.34
    valuePayable: null,
    currency: "EUR",
    biddersCount: 4,
    framework: false,
    valueIsCeiling: false,
    durationMonths: null,
    startDate: null,
    startDateKind: null,
    endDate: null,
    extensionText: null,
    extensionMonths: null,
    extensionEndDate: null,
    contractSigned: true,
    cpv: "72313000",
    ...overrides,
  };
}

function tedTender(overrides: Partial<NormalizedTender> = {}): NormalizedTender {
  return {
    source: "ted",
    sourceRef: "412345-2025",
    feed: null,
    folderId: null,
    upstreamUpdated: "2025-07-25T00:00:00.000Z",
    noticeType: "award-notice",
    publicationDate: "2025-07-25",
    title: "Encuesta de condiciones de vida de los hogares de Canarias 2025",
    description: null,
    cpvMain: "72313000",
    cpvAll: ["72313000"],
    contractType: "services",
    procedureType: "open",
    deadline: null,
    estimatedValue: null,
    currency: "EUR",
    nuts: "ES70",
    url: "https://ted.europa.eu/en/notice/-/detail/412345-2025",
    status: "signed",
    sourceCodes: {
      notice: "can-standard",
      procedure: "open",
      contract: "services",
      legal_basis: "32014L0024",
    },
    framework: false,
    durationMonths: null,
    buyer: ISTAC_BUYER,
    awards: [tedAward()],
    crossRef: null,
    ...overrides,
  };
}

async function ingestTed(...tenders: NormalizedTender[]): Promise<void> {
  const run = await IngestRun.start(
    { db: t.db, log, now: () => new Date() },
    {
      source: "ted",
      feed: null,
      location: "test",
    },
  );
  // Distinct content per test record: the raw hash stands in for the hash of the notice XML.
  const versions: IngestVersion[] = tenders.map((tender) => ({
    tender,
    errors: [],
    rawHash: JSON.stringify(tender),
  }));
  await run.commit({ source: "ted", versions, tombstones: [], failures: [] }, 1);
  await run.finish();
  await afterIngestRun({ db: t.db, log, now: () => new Date() });
}

async function links() {
  const { rows } = await t.db.query<{ ted: string; placsp: string; rule: string }>(
    `SELECT a.source_ref AS ted, b.source_ref AS placsp, l.rule
       FROM tender_links l JOIN tenders a ON a.id = l.tender_id JOIN tenders b ON b.id = l.canonical_id
      ORDER BY a.source_ref`,
  );
  return rows;
}

describe("linking a TED tender to its PLACSP procedure", () => {
  it("links on buyer NIF + winner NIF + value within 10% + same year, and counts the procedure once", async () => {
    await ingestTed(tedTender());
    expect(await links()).toEqual([{ ted: "412345-2025", placsp: ISTAC, rule: "award_match" }]);

    const { app } = buildTestApp({ db: t.db });
    const pay = async (endpoint: string) => ({ "x-payment": await devToken(app, endpoint) });
    // Search: the REDCA award appears once (the PLACSP one).
    const search = await getJson(app, "/v1/search?company=redca", await pay("GET /v1/search"));
    expect((search.body.data as { tender_source_ref: string }[]).map((r) => r.tender_source_ref)).toEqual([
      ISTAC,
    ]);
    expect((search.body.meta as { total: number }).total).toBe(1);
    // Tender search lists the procedure once too.
    const tenders = await getJson(app, "/v1/search?type=tender&cpv=72313", await pay("GET /v1/search"));
    expect((tenders.body.meta as { total: number }).total).toBe(1);

    // The company's aggregates count the award once.
    const { rows } = await t.db.query<{ id: number }>("SELECT id FROM companies WHERE nif = 'A38210100'");
    const company = await getJson(app, `/v1/companies/${rows[0]?.id}`, await pay("GET /v1/companies/:id"));
    expect(
      (company.body.data as { stats: { wins: number; total_awarded_value: number } }).stats,
    ).toMatchObject({
      wins: 1,
      total_awarded_value: 224002.34,
    });

    // Both tenders answer with both notices in provenance.
    const ids = await t.db.query<{ id: number; source: string }>(
      "SELECT id, source FROM tenders ORDER BY source",
    );
    for (const { id } of ids.rows) {
      const tender = await getJson(app, `/v1/tenders/${id}`, await pay("GET /v1/tenders/:id"));
      const refs = (tender.body.meta as { provenance: { source: string; source_ref: string }[] }).provenance;
      expect(refs.map((p) => p.source_ref).sort()).toEqual(["412345-2025", ISTAC].sort());
    }
  });

  it("links on an explicit reference to the PLACSP procedure page, whatever the values", async () => {
    await ingestTed(tedTender({ crossRef: ISTAC_URL, awards: [tedAward({ value: 999_999 })] }));
    expect(await links()).toEqual([{ ted: "412345-2025", placsp: ISTAC, rule: "reference" }]);
  });

  it("links on the buyer's file number for the same buyer", async () => {
    await ingestTed(tedTender({ folderId: "2/2025", awards: [] }));
    expect(await links()).toEqual([{ ted: "412345-2025", placsp: ISTAC, rule: "file_number" }]);
  });

  it.each([
    ["the values differ by more than 10%", { awards: [tedAward({ value: 250_000 })] }],
    ["the award is from another year", { awards: [tedAward({ awardDate: "2024-07-18" })] }],
    [
      "the winner has no valid NIF (same name only)",
      {
        awards: [tedAward({ winner: { ...REDCA, nif: null, rawId: "n/a", name: "REDCA S.A." } })],
      },
    ],
    ["the buyer has no valid NIF", { buyer: { ...ISTAC_BUYER, nif: null, rawId: null } }],
    [
      "the file number belongs to another buyer",
      { folderId: "2/2025", awards: [], buyer: { ...ISTAC_BUYER, nif: "P4109100J" } },
    ],
  ] as const)("does not link when %s", async (_, overrides) => {
    await ingestTed(tedTender(overrides as Partial<NormalizedTender>));
    expect(await links()).toEqual([]);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM awards WHERE superseded",
    );
    expect(rows[0]?.n).toBe(0);
  });

  it("does not link when two PLACSP procedures match equally (ambiguous)", async () => {
    // A second PLACSP folder of the same buyer, same winner and value: the lifecycle's final version under
    // another entry id.
    const { header, entries } = splitFeed(LIFECYCLE);
    await ingestPage(t.db, {
      xml: buildPage(header, [(entries[0] ?? "").replace(ISTAC, `${ISTAC}0`).replace(/2\/2025/g, "9/2025")]),
    });
    await ingestTed(tedTender());
    expect(await links()).toEqual([]);
  });

  it("keeps awards of a linked tender superseded when the TED notice is re-published", async () => {
    await ingestTed(tedTender());
    await ingestTed(
      tedTender({ upstreamUpdated: "2025-08-01T00:00:00.000Z", awards: [tedAward({ lot: "LOT-0001" })] }),
    );
    const { rows } = await t.db.query<{ lot: string; superseded: boolean }>(
      "SELECT a.lot, a.superseded FROM awards a JOIN tenders t ON t.id = a.tender_id WHERE t.source = 'ted'",
    );
    expect(rows).toEqual([{ lot: "LOT-0001", superseded: true }]);
  });
});
