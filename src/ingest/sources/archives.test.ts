import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import type { Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import { buildZip } from "../../../test/helpers/zip.ts";
import { readPlacspFeed } from "../placsp/parse.ts";
import type { PageSourceOptions } from "./archives.ts";
import { classifySource, openPageSource } from "./archives.ts";
import { nextHref } from "./feed-walk.ts";
import type { HttpOptions } from "./http.ts";
import { FetchError } from "./http.ts";
import { ZipArchiveError } from "./zip-pages.ts";

const FIXTURE_DIR = `${SHARED_DIR}fixtures/placsp`;
const AGREGADAS = "agregadas_sinmenores_2026-09_1entry_tombstone.atom";
const DIC_2025 = "licitaciones_completo3_2025-12_2entries_tombstone.atom";
const LIFECYCLE = "licitaciones_completo3_lifecycle_17165996.atom";
const fixture = (name: string): Buffer => readFileSync(join(FIXTURE_DIR, name));

/** The three fixtures under real PLACSP page names, as a ZIP of feed 643 would hold them. */
const HEAD_NAME = "licitacionesPerfilesContratanteCompleto3.atom";
const NEWER_NAME = "licitacionesPerfilesContratanteCompleto3_20251229_190523.atom";
const OLDER_NAME = "licitacionesPerfilesContratanteCompleto3_20251229_190523_1.atom";

const http: HttpOptions = {
  userAgent: "procurement-intel-test/1.0",
  timeoutMs: 2000,
  retries: 2,
  baseDelayMs: 1,
  maxDelayMs: 1,
  sleep: async () => undefined,
};

let work = "";
const servers: Server[] = [];

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "sources-test-"));
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(work, { recursive: true, force: true });
});

/** Fixtures in an order unlike the expected one, plus entries that must be ignored. */
function placspZip(): Buffer {
  return buildZip([
    { name: "2025/", data: new Uint8Array(), store: true },
    { name: `2025/${OLDER_NAME}`, data: fixture(LIFECYCLE) },
    { name: "2025/LEEME.txt", data: Buffer.from("not a page") },
    { name: HEAD_NAME, data: fixture(AGREGADAS), store: true },
    { name: `__MACOSX/2025/._${NEWER_NAME}`, data: Buffer.from("resource fork") },
    { name: `2025/${NEWER_NAME}`, data: fixture(DIC_2025) },
  ]);
}

// --- helpers ---

interface ReadPage {
  name: string;
  bytes: Buffer;
}

async function readAll(source: string, options: PageSourceOptions = {}): Promise<ReadPage[]> {
  const pages: ReadPage[] = [];
  for await (const page of openPageSource(source, options)) {
    const chunks: Buffer[] = [];
    for await (const chunk of page.body) {
      chunks.push(Buffer.from(chunk));
    }
    pages.push({ name: page.name, bytes: Buffer.concat(chunks) });
  }
  return pages;
}

async function serve(handler: (res: ServerResponse, n: number, path: string) => void): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    handler(res, n, req.url ?? "");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// --- tests ---

describe("classifySource", () => {
  it("tells URLs apart by a .zip path and local paths by the file system", async () => {
    await writeFile(join(work, "a.zip"), placspZip());
    await writeFile(join(work, "page.atom"), "x");
    expect(await classifySource("https://example.test/sindicacion_643/x_2025.zip")).toBe("url-zip");
    expect(await classifySource("https://example.test/x_2025.ZIP?token=1")).toBe("url-zip");
    expect(await classifySource("https://example.test/sindicacion_643/head.atom")).toBe("url-feed");
    expect(await classifySource("http://example.test/download?file=x.zip")).toBe("url-feed");
    expect(await classifySource(work)).toBe("dir");
    expect(await classifySource(join(work, "a.zip"))).toBe("zip");
    expect(await classifySource(join(work, "page.atom"))).toBe("file");
    expect(await classifySource(pathToFileURL(join(work, "a.zip")).href)).toBe("zip");
    await expect(classifySource(join(work, "missing.atom"))).rejects.toThrow(/ENOENT/);
  });
});

describe("openPageSource: local files and directories", () => {
  it("reads a directory of fixtures in place, by name descending when names carry no timestamp", async () => {
    const pages = await readAll(FIXTURE_DIR);
    expect(pages.map((p) => p.name)).toEqual([LIFECYCLE, DIC_2025, AGREGADAS]);
    for (const page of pages) {
      expect(page.bytes.equals(fixture(page.name))).toBe(true);
    }
  });

  it("orders PLACSP page names newest first and ignores other files", async () => {
    const names = [OLDER_NAME, "notes.txt", HEAD_NAME, NEWER_NAME, "feed_20200101_000000.atom.bak"];
    for (const name of names) {
      await writeFile(join(work, name), name);
    }
    await mkdir(join(work, "old.atom"));
    const pages = await readAll(work);
    expect(pages.map((p) => p.name)).toEqual([HEAD_NAME, NEWER_NAME, OLDER_NAME]);
    expect(pages.map((p) => p.bytes.toString())).toEqual([HEAD_NAME, NEWER_NAME, OLDER_NAME]);
    expect((await readAll(work, { maxPages: 2 })).map((p) => p.name)).toEqual([HEAD_NAME, NEWER_NAME]);
  });

  it("reads a single file", async () => {
    const pages = await readAll(join(FIXTURE_DIR, DIC_2025));
    expect(pages.map((p) => p.name)).toEqual([DIC_2025]);
    expect(pages[0]?.bytes.equals(fixture(DIC_2025))).toBe(true);
  });

  it("lets the caller skip a body and break early", async () => {
    const seen: string[] = [];
    for await (const page of openPageSource(FIXTURE_DIR)) {
      seen.push(page.name);
      page.setNext("ignored.atom");
      if (seen.length === 2) {
        break;
      }
    }
    expect(seen).toEqual([LIFECYCLE, DIC_2025]);
  });
});

describe("openPageSource: ZIP archives", () => {
  it("streams the .atom entries of a ZIP newest first, ignoring everything else", async () => {
    const zip = join(work, "licitacionesPerfilesContratanteCompleto3_2025.zip");
    await writeFile(zip, placspZip());
    const pages = await readAll(zip);
    expect(pages.map((p) => p.name)).toEqual([HEAD_NAME, `2025/${NEWER_NAME}`, `2025/${OLDER_NAME}`]);
    expect(pages[0]?.bytes.equals(fixture(AGREGADAS))).toBe(true);
    expect(pages[1]?.bytes.equals(fixture(DIC_2025))).toBe(true);
    expect(pages[2]?.bytes.equals(fixture(LIFECYCLE))).toBe(true);
  });

  it("feeds the parser straight from the archive", async () => {
    const zip = join(work, "feed.zip");
    await writeFile(zip, placspZip());
    const counts: number[] = [];
    for await (const page of openPageSource(zip)) {
      let entries = 0;
      for await (const item of readPlacspFeed(page.body)) {
        if (item.kind === "entry") {
          entries++;
        }
      }
      counts.push(entries);
    }
    expect(counts).toEqual([1, 2, 11]);
  });

  it("rejects a file that is not a ZIP, and a truncated one", async () => {
    const garbage = join(work, "garbage.zip");
    await writeFile(garbage, Buffer.from("<html>503 Service Unavailable</html>"));
    const error = await readAll(garbage).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ZipArchiveError);
    expect((error as Error).message).toMatch(/^corrupt ZIP archive .*garbage\.zip: /);

    const truncated = join(work, "truncated.zip");
    const whole = placspZip();
    await writeFile(truncated, whole.subarray(0, whole.length - 40));
    await expect(readAll(truncated)).rejects.toThrow(ZipArchiveError);
  });

  it("reports a damaged entry by name", async () => {
    const zip = buildZip([{ name: HEAD_NAME, data: fixture(AGREGADAS) }]);
    // Scramble the deflate stream (it starts after the 30-byte local header and the name).
    const start = 30 + HEAD_NAME.length;
    for (let i = start; i < start + 64; i++) {
      zip[i] = 0xff;
    }
    const path = join(work, "damaged.zip");
    await writeFile(path, zip);
    const error = await readAll(path).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ZipArchiveError);
    expect((error as Error).message).toMatch(
      /^corrupt entry licitacionesPerfilesContratanteCompleto3\.atom in ZIP/,
    );
  });
});

describe("openPageSource: remote ZIP", () => {
  it("downloads to a temporary file, yields the same pages, then removes the file", async () => {
    const zip = placspZip();
    const base = await serve((res) => {
      res.writeHead(200, { "content-type": "application/zip", "content-length": String(zip.length) });
      res.end(zip);
    });
    const tmp = join(work, "tmp");
    await mkdir(tmp);
    const names: string[] = [];
    const during: string[][] = [];
    for await (const page of openPageSource(`${base}/sindicacion_643/x_2025.zip`, { http, tmpDir: tmp })) {
      names.push(page.name);
      during.push(await readdir(tmp));
      for await (const _chunk of page.body) {
        // Drain.
      }
    }
    expect(names).toEqual([HEAD_NAME, `2025/${NEWER_NAME}`, `2025/${OLDER_NAME}`]);
    expect(during[0]).toHaveLength(1);
    expect(await readdir(tmp)).toEqual([]);
  });

  it("removes the temporary file when the caller stops early or fails", async () => {
    const zip = placspZip();
    const base = await serve((res) => res.end(zip));
    const tmp = join(work, "tmp");
    await mkdir(tmp);
    for await (const _page of openPageSource(`${base}/a.zip`, { http, tmpDir: tmp })) {
      break;
    }
    expect(await readdir(tmp)).toEqual([]);

    const failing = (async () => {
      for await (const _page of openPageSource(`${base}/a.zip`, { http, tmpDir: tmp })) {
        throw new Error("pipeline failed");
      }
    })();
    await expect(failing).rejects.toThrow("pipeline failed");
    expect(await readdir(tmp)).toEqual([]);
  });

  it("restarts an interrupted download, and fails cleanly on a 404 or a corrupt archive", async () => {
    const zip = placspZip();
    const base = await serve((res, n, path) => {
      if (path === "/missing.zip") {
        res.writeHead(404);
        res.end();
      } else if (path === "/corrupt.zip") {
        res.end("<html>maintenance</html>");
      } else if (n === 1) {
        res.writeHead(200, { "content-length": String(zip.length) });
        res.write(zip.subarray(0, 1000));
        setTimeout(() => res.socket?.destroy(), 20);
      } else {
        res.end(zip);
      }
    });
    const tmp = join(work, "tmp");
    await mkdir(tmp);
    const retries: string[] = [];
    const pages = await readAll(`${base}/flaky.zip`, {
      http: { ...http, onRetry: (info) => retries.push(info.reason) },
      tmpDir: tmp,
    });
    expect(pages).toHaveLength(3);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatch(/^transfer interrupted: /);

    const missing = await readAll(`${base}/missing.zip`, { http, tmpDir: tmp }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(FetchError);
    await expect(readAll(`${base}/corrupt.zip`, { http, tmpDir: tmp })).rejects.toThrow(
      new RegExp(`^corrupt ZIP archive ${base}/corrupt\\.zip: `),
    );
    expect(await readdir(tmp)).toEqual([]);
  });

  it("requires HTTP options for URL sources", async () => {
    await expect(readAll("https://example.test/a.zip")).rejects.toThrow(/options\.http is required/);
  });
});

describe("openPageSource: live feed", () => {
  it("walks a feed URL through setNext", async () => {
    const head = fixture(AGREGADAS)
      .toString()
      .replace(/href="[^"]*_20260922_030057\.atom"/, 'href="older.atom"');
    const older = fixture(DIC_2025);
    const base = await serve((res, _n, path) => {
      res.end(path === "/feed/head.atom" ? head : older);
    });
    const names: string[] = [];
    for await (const page of openPageSource(`${base}/feed/head.atom`, { http })) {
      names.push(page.name);
      for await (const item of readPlacspFeed(page.body)) {
        if (item.kind === "feed") {
          page.setNext(nextHref(item.links));
        }
      }
    }
    expect(names).toEqual([`${base}/feed/head.atom`, `${base}/feed/older.atom`]);
  });
});
