import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestPlacsp } from "../../src/ingest/placsp/ingest-placsp.ts";
import type { HttpOptions } from "../../src/ingest/sources/http.ts";
import { ingestTed, type TedIngestOptions } from "../../src/ingest/ted/ingest-ted.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { type FeedServer, HEAD_PATH, startFeedServer } from "../helpers/feed-server.ts";
import { canonicalDump } from "../helpers/placsp.ts";
import { noticeXml, startTedServer, type TedServer } from "../helpers/ted-server.ts";

/**
 * XML bombs fed to both ingesters through their real entry points: a PLACSP feed page (walked from the feed
 * server) and a TED notice (downloaded from the Search API's XML link, and read from a local file). Each
 * bomb must end in a clean error recorded on the run (a failed PLACSP run with its message; a TED notice error
 * row), with flat memory (peak RSS growth measured while it is read, bounded at 200 MB even for the 300 MB
 * file, which is generated on the fly in a temporary directory and removed), and nothing half-written: the
 * database equals its state before the bad input.
 */

const MAX_GROWTH_MB = 200;
const JUNK_BYTES = 300 * 1024 * 1024;
const ATOM = "http://www.w3.org/2005/Atom";
const EFORMS_CN = "urn:oasis:names:specification:ubl:schema:xsd:ContractNotice-2";
/** The notice whose XML link serves the bomb (already stored by the clean run: it must stay as it was). */
const BOMBED = "611835-2024";
const PAGES = [["611835-2024", "607986-2024", "191536-2024"], ["615708-2023"]];

/** A property makes hundreds of requests or several full ingest runs: more than the default 30 s on a loaded machine. */
const PROPERTY_TIMEOUT_MS = 180_000;

const t = useTestDb();
const log = createLogger("silent");
let feed: FeedServer;
let ted: TedServer;
let dir: string;
let before: string;
/** The feed's own head page, put back after each bomb. */
let headPage: string;
/** What each bomb cost, for the closing figures. */
const figures: string[] = [];

const http: HttpOptions = {
  userAgent: "procurement-intel-test",
  timeoutMs: 5_000,
  retries: 1,
  baseDelayMs: 1,
  maxDelayMs: 5,
};

function placsp() {
  return ingestPlacsp(
    { db: t.db, log, now: () => new Date() },
    { source: feed.headUrl, feed: "643", since: null, maxPages: 1, batchSize: 50, http },
  );
}

function tedRun(source: string, options: Partial<TedIngestOptions> = {}) {
  return ingestTed(
    { db: t.db, log, now: () => new Date("2024-11-01T12:00:00Z") },
    {
      source,
      since: null,
      maxNotices: null,
      batchSize: 50,
      http,
      query: { apiQuery: null, cpvPrefixes: [], countries: ["ESP"] },
      lookbackDays: 30,
      noticeIntervalMs: 0,
      ...options,
    },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pi-bombs-"));
  feed = await startFeedServer();
  ted = await startTedServer(PAGES.map((page) => [...page]));
  headPage = feed.pages.get(HEAD_PATH) ?? "";
  await placsp();
  await tedRun(ted.base);
  before = await canonicalDump(t.db);
});

afterAll(async () => {
  await feed?.close();
  await ted?.close();
  await rm(dir, { recursive: true, force: true });
  console.info(`XML bombs (peak growth while read): ${figures.join("; ")}`);
});

/** Runs `read` while sampling memory; returns the peak growth over the level before it, in MB. */
async function measured<T>(label: string, read: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed + base.external + base.arrayBuffers;
  const sample = () => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed + now.external + now.arrayBuffers);
  };
  const timer = setInterval(sample, 10);
  const started = performance.now();
  let growthMb = 0;
  let heapMb = 0;
  try {
    const value = await read();
    return { value, growthMb };
  } finally {
    clearInterval(timer);
    sample();
    growthMb = (peakRss - base.rss) / 2 ** 20;
    heapMb = (peakHeap - base.heapUsed - base.external - base.arrayBuffers) / 2 ** 20;
    figures.push(
      `${label}: RSS +${growthMb.toFixed(1)} MB, heap+buffers +${heapMb.toFixed(1)} MB, ${Math.round(performance.now() - started)} ms`,
    );
    expect(growthMb, label).toBeLessThan(MAX_GROWTH_MB);
    expect(heapMb, label).toBeLessThan(MAX_GROWTH_MB);
  }
}

async function lastRun(): Promise<{ status: string; message: string | null }> {
  const { rows } = await t.db.query<{ status: string; message: string | null }>(
    "SELECT status, message FROM ingest_runs ORDER BY id DESC LIMIT 1",
  );
  return rows[0] ?? { status: "none", message: null };
}

/** A PLACSP page carrying `bomb` (served as the feed's head) fails the run cleanly and writes nothing. */
async function placspBomb(label: string, bomb: string | { file: string }, diagnosis: RegExp): Promise<void> {
  if (typeof bomb === "string") {
    feed.files.delete(HEAD_PATH);
    feed.pages.set(HEAD_PATH, bomb);
  } else {
    feed.files.set(HEAD_PATH, bomb.file);
  }
  try {
    await measured(`PLACSP ${label}`, () => expect(placsp()).rejects.toThrow(diagnosis));
    expect(await lastRun()).toEqual({ status: "failed", message: expect.stringMatching(diagnosis) });
    expect(await canonicalDump(t.db)).toBe(before);
  } finally {
    feed.files.delete(HEAD_PATH);
    feed.pages.set(HEAD_PATH, headPage);
  }
}

/** A TED notice whose XML link serves `bomb` is recorded as a notice error; nothing else changes. */
async function tedBomb(label: string, bomb: string | { file: string }, diagnosis: RegExp): Promise<void> {
  ted.noticeBodies.set(BOMBED, bomb);
  try {
    const { value } = await measured(`TED ${label}`, () => tedRun(ted.base));
    expect(value.errors, label).toBe(1);
    const { rows } = await t.db.query<{ entry_ref: string; reason: string }>(
      "SELECT e.entry_ref, e.reason FROM ingest_errors e WHERE e.run_id = $1",
      [value.runId],
    );
    expect(rows).toEqual([{ entry_ref: BOMBED, reason: expect.stringMatching(diagnosis) }]);
    expect(await canonicalDump(t.db)).toBe(before);
  } finally {
    ted.noticeBodies.delete(BOMBED);
  }
}

const LAUGHS = (() => {
  const entities = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++) {
    entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? "" : i - 1};`.repeat(10)}">`);
  }
  return `<!DOCTYPE lolz [${entities.join("")}]>`;
})();

/** Wraps a body in a PLACSP page / a TED notice root. */
const atomPage = (prolog: string, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>${prolog}<feed xmlns="${ATOM}"><id>x</id>${inner}</feed>`;
const tedNotice = (prolog: string, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>${prolog}<ContractNotice xmlns="${EFORMS_CN}">${inner}</ContractNotice>`;

describe("XML bombs against both ingesters", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it("billion laughs: refused at the DOCTYPE, nothing expanded", async () => {
    await placspBomb("billion laughs", atomPage(LAUGHS, "<entry><title>&lol9;</title></entry>"), /DOCTYPE/);
    await tedBomb("billion laughs", tedNotice(LAUGHS, "<x>&lol9;</x>"), /DOCTYPE/);
  });

  it("external entities and DTDs: refused, nothing fetched or read", async () => {
    let dtdRequests = 0;
    const dtdServer = createServer((_req, res) => {
      dtdRequests++;
      res.end('<!ENTITY xxe SYSTEM "file:///etc/passwd">');
    });
    await new Promise<void>((resolve) => dtdServer.listen(0, "127.0.0.1", resolve));
    const dtd = `http://127.0.0.1:${(dtdServer.address() as AddressInfo).port}/evil.dtd`;
    try {
      const system = '<!DOCTYPE feed [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
      const external = `<!DOCTYPE feed SYSTEM "${dtd}">`;
      const parameter = `<!DOCTYPE feed [<!ENTITY % remote SYSTEM "${dtd}"> %remote;]>`;
      for (const [name, prolog] of [
        ["external entity", system],
        ["external DTD", external],
        ["parameter entity", parameter],
      ] as const) {
        await placspBomb(name, atomPage(prolog, "<entry><title>&xxe;</title></entry>"), /DOCTYPE/);
        await tedBomb(name, tedNotice(prolog, "<x>&xxe;</x>"), /DOCTYPE/);
      }
      // Without a DOCTYPE an entity reference is simply undefined.
      await placspBomb("undeclared entity", atomPage("", "<entry><title>&xxe;</title></entry>"), /entity/i);
      await tedBomb("undeclared entity", tedNotice("", "<x>&xxe;</x>"), /entity/i);
      expect(dtdRequests).toBe(0);
    } finally {
      dtdServer.close();
    }
  });

  it("100,000-deep nesting: refused past the depth limit, inside or outside a record", async () => {
    const deep = `${"<x>".repeat(100_000)}${"</x>".repeat(100_000)}`;
    await placspBomb(
      "100k-deep nesting in an entry",
      atomPage("", `<entry>${deep}</entry>`),
      /nested deeper/,
    );
    await placspBomb("100k-deep nesting outside entries", atomPage("", deep), /nested deeper/);
    await tedBomb("100k-deep nesting", tedNotice("", deep), /nested deeper/);
  });

  it("a truncated page or notice: refused after reading it again, nothing half-written", async () => {
    // Cut inside the first entry: the page is read again (the retry budget), cut again, and the run fails.
    const firstEntryEnd = headPage.indexOf("</entry>");
    await placspBomb("truncated page", headPage.slice(0, firstEntryEnd - 50), /truncated/);
    const notice = noticeXml(BOMBED) ?? "";
    await tedBomb("truncated notice", notice.slice(0, notice.length / 2), /cut short/);
  });

  it("a 300 MB junk file: refused once past a limit, without holding it", async () => {
    // One text node of 300 MB inside an entry: no markup for ever, so saxes would buffer all of it.
    const placspJunk = await junkFile(
      "placsp-junk.atom",
      atomPage("", "<entry><title>").replace("</feed>", ""),
    );
    await placspBomb("300 MB junk page", { file: placspJunk }, /without markup/);
    // The same as a notice: the download stops at the notice size cap; the file is never read whole.
    const tedJunk = await junkFile(
      "00611835_2024.xml",
      tedNotice("", "<x>").replace("</ContractNotice>", ""),
    );
    await tedBomb("300 MB junk notice", { file: tedJunk }, /exceeds \d+ bytes/);
    const { value } = await measured("TED 300 MB junk file", () => tedRun(tedJunk));
    expect(value).toMatchObject({ notices: 0, errors: 1 });
    const { rows } = await t.db.query<{ reason: string }>(
      "SELECT reason FROM ingest_errors WHERE run_id = $1",
      [value.runId],
    );
    expect(rows).toEqual([{ reason: expect.stringMatching(/bytes, more than the \d+ a notice may have/) }]);
    expect(await canonicalDump(t.db)).toBe(before);
  });
});

/** Writes `head` then 300 MB of "A" to a file in the temporary directory, a megabyte at a time. */
async function junkFile(name: string, head: string): Promise<string> {
  const path = join(dir, name);
  const out = createWriteStream(path);
  const chunk = Buffer.alloc(1024 * 1024, "A");
  out.write(head);
  for (let written = 0; written < JUNK_BYTES; written += chunk.length) {
    if (!out.write(chunk)) {
      await once(out, "drain");
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return path;
}
