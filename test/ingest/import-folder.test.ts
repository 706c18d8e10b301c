import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ImportFolder, kindOfImport, startImportFolder } from "../../src/ingest/import-folder.ts";
import { writeSyntheticFeed } from "../../src/ingest/synthetic/feed.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { truncateAll, useTestDb } from "../helpers/db.ts";
import { LIFECYCLE } from "../helpers/placsp.ts";

const t = useTestDb();
const log = createLogger("silent");
const http = {
  userAgent: "procurement-intel-test",
  timeoutMs: 1000,
  retries: 0,
  baseDelayMs: 1,
  maxDelayMs: 5,
};
let folder: ImportFolder | undefined;

afterEach(async () => {
  await folder?.stop();
  folder = undefined;
  await truncateAll(t.db);
});

function start(dir: string, refuseSynthetic = false): ImportFolder {
  folder = startImportFolder(
    { db: t.db, log, now: () => new Date(), refuseSynthetic },
    {
      dir,
      intervalMs: 3_600_000, // the test drives scan() itself
      http,
      ted: { query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] }, lookbackDays: 30 },
    },
  );
  return folder;
}

/** Marks a file as finished writing (older than the settle time). */
function settle(path: string): void {
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
}

async function count(sql: string): Promise<number> {
  return (await t.db.query<{ n: number }>(sql)).rows[0]?.n ?? -1;
}

describe("the import folder", () => {
  it("knows PLACSP and TED files by name", () => {
    expect(["a.atom", "m.ZIP", "n.xml", "p.tar.gz", "q.tgz", "notes.txt"].map(kindOfImport)).toEqual([
      "placsp",
      "placsp",
      "ted",
      "ted",
      "ted",
      null,
    ]);
  });

  it("ingests a settled file and moves it to done/, leaves a file being written, fails what it cannot read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-import-"));
    copyFileSync(LIFECYCLE, join(dir, "a.atom"));
    settle(join(dir, "a.atom"));
    writeFileSync(join(dir, "b.atom"), "<feed"); // just written: not settled yet
    writeFileSync(join(dir, "notes.txt"), "hello");
    settle(join(dir, "notes.txt"));
    const first = await start(dir).scan();
    expect(first).toEqual({ imported: ["a.atom"], failed: ["notes.txt"] });
    expect(await count("SELECT count(*)::int AS n FROM tenders")).toBe(1);
    expect(readdirSync(join(dir, "done"))).toEqual([expect.stringMatching(/_a\.atom$/)]);
    const failed = readdirSync(join(dir, "failed")).sort();
    expect(failed).toEqual([
      expect.stringMatching(/_notes\.txt$/),
      expect.stringMatching(/_notes\.txt\.error\.txt$/),
    ]);
    expect(readFileSync(join(dir, "failed", failed[1] as string), "utf8")).toContain(
      "not an importable file",
    );
    expect(existsSync(join(dir, "b.atom"))).toBe(true);
    // Once settled, a broken page fails with the parser's reason and the folder is empty.
    settle(join(dir, "b.atom"));
    expect(await folder?.scan()).toEqual({ imported: [], failed: ["b.atom"] });
    expect(readdirSync(dir).sort()).toEqual(["done", "failed"]);
  });

  it("refuses synthetic entries on a server that takes real payments", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-import-"));
    const written = await writeSyntheticFeed(dir, { entries: 5, seed: 7 });
    for (const file of readdirSync(dir)) {
      settle(join(dir, file));
    }
    const result = await start(dir, true).scan();
    expect(result.imported).toHaveLength(written.pages);
    expect(await count("SELECT count(*)::int AS n FROM tenders")).toBe(0);
    expect(
      await count(
        "SELECT count(*)::int AS n FROM ingest_errors WHERE reason LIKE 'synthetic entry refused%'",
      ),
    ).toBe(written.entries);
  });
});
