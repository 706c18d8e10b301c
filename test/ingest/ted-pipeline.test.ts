import { readdirSync, readFileSync } from "node:fs";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { advanceCheckpoint, getCheckpoint, startIngestRun } from "../../src/db/queries/ingest-runs.ts";
import type { HttpOptions } from "../../src/ingest/sources/http.ts";
import { ingestTed, TED_API_CHECKPOINT, type TedIngestOptions } from "../../src/ingest/ted/ingest-ted.ts";
import { syntheticTedNotices } from "../../src/ingest/ted/synthetic.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { canonicalDump } from "../helpers/placsp.ts";
import { buildTar, tarEntry } from "../helpers/tar.ts";
import { TED_FIXTURES } from "../helpers/ted-server.ts";

const t = useTestDb();
let work = "";
const servers: Server[] = [];
beforeEach(async () => {
  await truncateAll(t.db);
  work = await mkdtemp(join(tmpdir(), "pi-ted-pipeline-"));
});
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(work, { recursive: true, force: true });
});

const http: HttpOptions = {
  userAgent: "procurement-intel-test",
  timeoutMs: 5_000,
  retries: 1,
  baseDelayMs: 1,
  maxDelayMs: 5,
};
const log = createLogger("silent");
const FIXTURE_FILES = readdirSync(TED_FIXTURES)
  .filter((name) => name.endsWith(".xml"))
  .sort();

function run(db: Db, options: Partial<TedIngestOptions> & { source: string }) {
  return ingestTed(
    { db, log, now: () => new Date("2024-11-01T12:00:00Z") },
    {
      since: null,
      maxNotices: null,
      batchSize: 250,
      http,
      query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
      lookbackDays: 30,
      noticeIntervalMs: 0,
      ...options,
    },
  );
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await t.db.query<T & Record<string, unknown>>(sql, params)).rows;
}

/** A daily-package-like `.tar.gz` of the fixture files under one issue folder. */
function fixturePackage(): Buffer {
  return gzipSync(
    buildTar(
      FIXTURE_FILES.map((name) => ({
        name: `20241010_198/${name}`,
        data: readFileSync(join(TED_FIXTURES, name)),
      })),
    ),
  );
}

async function referenceDump(): Promise<string> {
  await truncateAll(t.db);
  await run(t.db, { source: TED_FIXTURES });
  const dump = await canonicalDump(t.db);
  await truncateAll(t.db);
  return dump;
}

describe("a directory of notices", () => {
  it("stores every fixture's tender and awards as published", async () => {
    const summary = await run(t.db, { source: TED_FIXTURES });
    // 10 files, 9 notices: the converter's eForms output repeats the R2.0.9 notice 153579-2020.
    expect(summary).toMatchObject({
      kind: "dir",
      query: null,
      notices: 10,
      noticesNew: 9,
      noticesUpdated: 1,
      noticesUnchanged: 0,
      skipped: 0,
      errors: 0,
      checkpoint: null,
    });
    expect(await rows("SELECT source, status, entries_new, errors FROM ingest_runs")).toEqual([
      { source: "ted", status: "succeeded", entries_new: 9, errors: 0 },
    ]);

    // The Belgian ICT framework (00611835-2024): six lots, two winners, ceilings not spend, lot 5 unsuccessful.
    const [belgian] = await rows<Record<string, unknown>>(
      `SELECT t.notice_type, t.status, t.source_codes, t.publication_date, t.framework, t.estimated_value, t.url,
              t.is_synthetic, b.name AS buyer
         FROM tenders t JOIN buyers b ON b.id = t.buyer_id WHERE t.source = 'ted' AND t.source_ref = $1`,
      ["611835-2024"],
    );
    expect(belgian).toEqual({
      notice_type: "award-notice",
      status: "signed",
      source_codes: {
        notice: "can-standard",
        procedure: "open",
        contract: "services",
        legal_basis: "32014L0024",
      },
      publication_date: "2024-10-10",
      framework: true,
      estimated_value: null,
      url: "https://ted.europa.eu/en/notice/-/detail/611835-2024",
      is_synthetic: false,
      buyer: "Service de Médiation pour le Consommateur",
    });
    expect(await awardsOf("611835-2024")).toEqual([
      ["LOT-0001", "selec-w", "DVIT", 4535.88, true, "2024-10-07"],
      ["LOT-0002", "selec-w", "3D-ICT", 447.97, true, "2024-10-07"],
      ["LOT-0003", "selec-w", "3D-ICT", 1209, true, "2024-10-07"],
      ["LOT-0004", "selec-w", "DVIT", 714, true, "2024-10-07"],
      ["LOT-0005", "clos-nw", null, null, false, null],
      ["LOT-0006", "selec-w", "DVIT", 767.3, true, "2024-10-07"],
    ]);
    // The award notice without a winner (00607986-2024): one result, 3 tenders received, no value.
    expect(await awardsOf("607986-2024")).toEqual([["LOT-0001", "clos-nw", null, null, false, null]]);
    expect(
      await rows("SELECT bidders_count FROM awards WHERE source_ref = '607986-2024#lot=LOT-0001'"),
    ).toEqual([{ bidders_count: 3 }]);
    // The Spanish concession notice: buyer identified by its NIF.
    expect(
      await rows(
        `SELECT t.estimated_value, t.nuts, b.name, b.nif FROM tenders t JOIN buyers b ON b.id = t.buyer_id
          WHERE t.source_ref = '402363-2023'`,
      ),
    ).toEqual([
      {
        estimated_value: 50_000_000,
        nuts: "ES511",
        name: "Autoridad Portuaria de Barcelona",
        nif: "Q0867012G",
      },
    ]);

    // The Spanish R2.0.9 framework (153579-2020): each lot went to a group of audit firms whose names and NIFs
    // are published joined in one contractor; the group is a company of its own, linked to its members.
    const groups = await rows<{ nif: string }>(
      `SELECT g.name AS group_name, m.nif FROM company_members cm
         JOIN companies g ON g.id = cm.group_id JOIN companies m ON m.id = cm.member_id
        ORDER BY g.name, m.nif`,
    );
    expect(groups.map((g) => g.nif)).toEqual([
      ...["B58671710", "B78510153", "B78970506", "B87352357"],
      ...["B14701908", "B58671710", "B78510153", "B78970506", "B87352357", "B97701312"],
    ]);
    expect(await rows("SELECT count(*)::int AS n FROM companies WHERE is_joint_venture")).toEqual([{ n: 2 }]);
    // Both publications of that notice are kept as versions of the one tender.
    expect(
      await rows(
        `SELECT count(*)::int AS n FROM tender_versions v JOIN tenders t ON t.id = v.tender_id
          WHERE t.source_ref = '153579-2020'`,
      ),
    ).toEqual([{ n: 2 }]);
  });

  it("changes nothing when the same notices are ingested again", async () => {
    await run(t.db, { source: TED_FIXTURES });
    const before = await canonicalDump(t.db);
    const again = await run(t.db, { source: TED_FIXTURES });
    expect(again).toMatchObject({
      notices: 10,
      noticesNew: 0,
      noticesUpdated: 0,
      noticesUnchanged: 10,
      errors: 0,
    });
    expect(await canonicalDump(t.db)).toBe(before);
  });

  it("reads one R2.0.9 notice file: the Catalan framework's three lots and their groups", async () => {
    const summary = await run(t.db, {
      source: join(TED_FIXTURES, "ted-r209-f03-153579-2020-ESP-framework.xml"),
    });
    expect(summary).toMatchObject({ kind: "file", notices: 1, noticesNew: 1, errors: 0 });
    const awards = await rows<{ lot: string; value: number; bidders_count: number; members: number }>(
      `SELECT a.lot, a.value, a.value_is_ceiling, a.bidders_count,
              (SELECT count(*)::int FROM company_members cm WHERE cm.group_id = a.winner_company_id) AS members
         FROM awards a ORDER BY a.lot`,
    );
    expect(awards).toEqual([
      { lot: "1", value: 7834899.64, value_is_ceiling: true, bidders_count: 7, members: 6 },
      { lot: "2", value: 1205369.2, value_is_ceiling: true, bidders_count: 4, members: 4 },
      { lot: "3", value: 602684.6, value_is_ceiling: true, bidders_count: 4, members: 4 },
    ]);
  });

  it("with --since skips notices published before it", async () => {
    const summary = await run(t.db, { source: TED_FIXTURES, since: "2024-01-01" });
    expect(summary).toMatchObject({ notices: 10, noticesNew: 3, skipped: 7, errors: 0 });
    expect(
      (await rows<{ source_ref: string }>("SELECT source_ref FROM tenders ORDER BY 1")).map(
        (r) => r.source_ref,
      ),
    ).toEqual(["191536-2024", "607986-2024", "611835-2024"]);
  });

  it("records a notice that cannot be read and goes on with the rest", async () => {
    await copyFile(join(TED_FIXTURES, "eforms-can-00191536-2024-NLD-single-lot.xml"), join(work, "a.xml"));
    await writeFile(join(work, "b.xml"), "<!doctype html><html><body>Service Unavailable</body></html>");
    await writeFile(join(work, "c.xml"), '<?xml version="1.0"?><Invoice xmlns="urn:x"><ID>1</ID></Invoice>');
    await writeFile(join(work, "d.xml"), Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x3e]));
    await copyFile(join(TED_FIXTURES, "eforms-cn-00402363-2023-ESP-concession.xml"), join(work, "e.xml"));
    const summary = await run(t.db, { source: work });
    expect(summary).toMatchObject({ notices: 4, noticesNew: 2, errors: 3 });
    expect(await rows("SELECT entry_ref, reason FROM ingest_errors ORDER BY entry_ref")).toEqual([
      { entry_ref: "b.xml", reason: expect.stringMatching(/not a well-formed TED notice|not a TED notice/) },
      { entry_ref: "c.xml", reason: expect.stringMatching(/not a TED notice: root element is <Invoice>/) },
      { entry_ref: "d.xml", reason: "not valid UTF-8" },
    ]);
  });
});

describe("daily packages", () => {
  it("a local .tar.gz of the same notices gives the same database", async () => {
    const reference = await referenceDump();
    const path = join(work, "202400198.tar.gz");
    await writeFile(path, fixturePackage());
    const summary = await run(t.db, { source: path });
    expect(summary).toMatchObject({ kind: "package", pages: 1, notices: 10, noticesNew: 9, errors: 0 });
    expect(await canonicalDump(t.db)).toBe(reference);
  });

  it("a package URL is downloaded and read the same way", async () => {
    const reference = await referenceDump();
    const gz = fixturePackage();
    const server = createServer((req, res) => {
      if (req.url !== "/packages/daily/202400198") {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/gzip", "content-length": String(gz.length) }).end(gz);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/packages/daily/202400198`;
    const summary = await run(t.db, { source: url });
    expect(summary).toMatchObject({ kind: "package-url", pages: 1, notices: 10, errors: 0 });
    expect(await canonicalDump(t.db)).toBe(reference);
  });

  it("a corrupt package fails the run, keeps the complete notices before the damage and the checkpoint", async () => {
    const runId = await startIngestRun(t.db, {
      source: "ted",
      feed: "api",
      location: "x",
      startedAt: new Date(),
    });
    await advanceCheckpoint(t.db, TED_API_CHECKPOINT, {
      updated: "2024-10-01T00:00:00.000Z",
      ref: "1-2024",
      runId,
    });
    // Three notices, the third cut off inside its data: the archive ends inside an entry.
    const entries = [
      "eforms-can-00191536-2024-NLD-single-lot.xml",
      "eforms-cn-00402363-2023-ESP-concession.xml",
    ]
      .concat("eforms-can-00611835-2024-BEL-ict-framework.xml")
      .map((name) =>
        Buffer.concat(tarEntry({ name: `x/${name}`, data: readFileSync(join(TED_FIXTURES, name)) })),
      );
    const [first, second, third] = entries;
    const tar = Buffer.concat([
      first ?? Buffer.alloc(0),
      second ?? Buffer.alloc(0),
      (third ?? Buffer.alloc(0)).subarray(0, 2048),
    ]);
    const path = join(work, "broken.tar.gz");
    await writeFile(path, gzipSync(tar));

    await expect(run(t.db, { source: path, batchSize: 1 })).rejects.toThrow(
      /corrupt tar archive .*truncated/,
    );
    expect(
      (await rows<{ source_ref: string }>("SELECT source_ref FROM tenders ORDER BY 1")).map(
        (r) => r.source_ref,
      ),
    ).toEqual(["191536-2024", "402363-2023"]);
    expect(
      await rows("SELECT status, entries_new, message FROM ingest_runs WHERE id <> $1", [runId]),
    ).toEqual([{ status: "failed", entries_new: 2, message: expect.stringMatching(/corrupt tar archive/) }]);
    expect((await getCheckpoint(t.db, TED_API_CHECKPOINT))?.cursorUpdated).toEqual(
      new Date("2024-10-01T00:00:00Z"),
    );
  });

  it("synthetic notices go through the same path, flagged as synthetic", async () => {
    const path = join(work, "synthetic.tar.gz");
    const notices = [...syntheticTedNotices({ notices: 40 })];
    await writeFile(
      path,
      gzipSync(buildTar(notices.map((n) => ({ name: n.name, data: Buffer.from(n.xml) })))),
    );
    const summary = await run(t.db, { source: path });
    expect(summary).toMatchObject({ notices: 40, noticesNew: 40, errors: 0 });
    expect(await rows("SELECT is_synthetic, count(*)::int AS n FROM tenders GROUP BY 1")).toEqual([
      { is_synthetic: true, n: 40 },
    ]);
  });

  it("a file that is not gzip fails the run and stores nothing", async () => {
    const path = join(work, "not-a-package.tar.gz");
    await writeFile(path, "<html>this is an error page</html>");
    await expect(run(t.db, { source: path })).rejects.toThrow(/not gzip/);
    expect(await rows("SELECT count(*)::int AS n FROM tenders")).toEqual([{ n: 0 }]);
    expect(await rows("SELECT status FROM ingest_runs")).toEqual([{ status: "failed" }]);
  });
});

/** Awards of a tender in lot order: lot, result, winner, value, ceiling, award date. */
async function awardsOf(sourceRef: string): Promise<unknown[][]> {
  const found = await rows<Record<string, unknown>>(
    `SELECT a.lot, a.result_code, c.name AS winner, a.value, a.value_is_ceiling, a.award_date
       FROM awards a JOIN tenders t ON t.id = a.tender_id LEFT JOIN companies c ON c.id = a.winner_company_id
      WHERE t.source = 'ted' AND t.source_ref = $1 ORDER BY a.lot`,
    [sourceRef],
  );
  return found.map((r) => [r.lot, r.result_code, r.winner, r.value, r.value_is_ceiling, r.award_date]);
}
