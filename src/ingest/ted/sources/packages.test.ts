import { createWriteStream, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createGzip, gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../../test/helpers/engines.ts";
import { buildTar, type TarInput, tarEntry } from "../../../../test/helpers/tar.ts";
import type { HttpOptions } from "../../sources/http.ts";
import { FetchError } from "../../sources/http.ts";
import { normalizeTedNotice, readTedNotice } from "../detect.ts";
import { TedPackageError, TedSourceError } from "./errors.ts";
import type { TedNoticeFile, TedNoticeSkip, TedPackageOptions } from "./packages.ts";
import { classifyTedSource, readTedFiles, readTedPackage } from "./packages.ts";

const FIXTURE_DIR = `${SHARED_DIR}fixtures/ted`;

/** One string as the async stream `readTedNotice` reads, the way the pipeline hands it a notice. */
async function* textStream(text: string): AsyncGenerator<string> {
  yield text;
}
const FIXTURES = readdirSync(FIXTURE_DIR)
  .filter((name) => name.endsWith(".xml"))
  .sort();
const fixture = (name: string): Buffer => readFileSync(join(FIXTURE_DIR, name));
const fixtureAt = (index: number): string => FIXTURES[index] ?? "";

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
  work = await mkdtemp(join(tmpdir(), "ted-sources-test-"));
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(work, { recursive: true, force: true });
});

const LONG_DIR = `20240102_002/${"sub-folder-with-a-rather-long-name/".repeat(3)}`;
const LONG_PREFIX_NAME = `${LONG_DIR}00191536_2024-with-a-long-file-name.xml`;
const LONG_PAX_NAME = `20240102_002/${"x".repeat(120)}_00611835_2024.xml`;
const LONG_GNU_NAME = `20240102_002/${"g".repeat(110)}.xml`;

/** A package like a daily one, plus entries that must be ignored and names that need long-name support. */
function samplePackage(): { tar: Buffer; expected: { name: string; xml: string }[] } {
  const entries: TarInput[] = [
    { name: "20240102_002/", type: "5" },
    { name: "20240102_002/00402363_2023.xml", data: fixture(fixtureAt(5)) },
    { name: "20240102_002/README.txt", data: Buffer.from("not a notice") },
    { name: LONG_PREFIX_NAME, data: fixture(fixtureAt(1)) },
    { name: "20240102_002/._00402363_2023.xml", data: Buffer.from([0, 5, 22, 7, 0xff]) },
    { name: LONG_PAX_NAME, data: fixture(fixtureAt(3)), longName: "pax" },
    { name: "20240102_002/link.xml", type: "2" },
    { name: LONG_GNU_NAME, data: fixture(fixtureAt(9)), longName: "gnu" },
  ];
  const expected = [
    { name: "20240102_002/00402363_2023.xml", xml: fixture(fixtureAt(5)).toString("utf8") },
    { name: LONG_PREFIX_NAME, xml: fixture(fixtureAt(1)).toString("utf8") },
    { name: LONG_PAX_NAME, xml: fixture(fixtureAt(3)).toString("utf8") },
    { name: LONG_GNU_NAME, xml: fixture(fixtureAt(9)).toString("utf8") },
  ];
  return { tar: buildTar(entries), expected };
}

async function readAll(iterable: AsyncIterable<TedNoticeFile>): Promise<TedNoticeFile[]> {
  const out: TedNoticeFile[] = [];
  for await (const item of iterable) {
    out.push(item);
  }
  return out;
}

async function serveFile(path: string, body: () => Promise<Buffer>): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    void body().then((bytes) => {
      res.writeHead(200, { "content-type": "application/gzip", "content-length": String(bytes.length) });
      res.end(bytes);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}${path}`;
}

describe("readTedPackage", () => {
  it("streams the XML notices of a local .tar.gz, with long names, ignoring other entries", async () => {
    const { tar, expected } = samplePackage();
    const path = join(work, "202400002.tar.gz");
    await writeFile(path, gzipSync(tar));
    expect(LONG_PREFIX_NAME.length).toBeGreaterThan(100);
    expect(LONG_PAX_NAME.length).toBeGreaterThan(100);

    const notices = await readAll(readTedPackage(path));
    expect(notices).toEqual(expected);
    // The same through a file: URL.
    expect(await readAll(readTedPackage(pathToFileURL(path).href))).toEqual(expected);

    // What the pipeline does with each one: parse and normalize the very text it hashes.
    for (const notice of notices) {
      const result = normalizeTedNotice(await readTedNotice(textStream(notice.xml)));
      expect(result).toBeDefined();
    }
  });

  it("downloads a package URL to a temporary file and deletes it afterwards, also on an early break", async () => {
    const { tar, expected } = samplePackage();
    const gz = gzipSync(tar);
    const url = await serveFile("/packages/daily/202400002", async () => gz);
    const tmp = join(work, "tmp");
    await mkdir(tmp);

    const seenTemp: string[][] = [];
    const notices: TedNoticeFile[] = [];
    for await (const notice of readTedPackage(url, { http, tmpDir: tmp })) {
      notices.push(notice);
      seenTemp.push(await readdir(tmp));
    }
    expect(notices).toEqual(expected);
    expect(seenTemp[0]).toHaveLength(1); // the download directory existed while reading
    expect(await readdir(tmp)).toEqual([]);

    for await (const notice of readTedPackage(url, { http, tmpDir: tmp })) {
      expect(notice.name).toBe(expected[0]?.name);
      break;
    }
    expect(await readdir(tmp)).toEqual([]);

    // A failed download leaves nothing behind either.
    const missing = url.replace("202400002", "202400003");
    await expect(readAll(readTedPackage(missing, { http, tmpDir: tmp }))).rejects.toThrow(FetchError);
    expect(await readdir(tmp)).toEqual([]);
    await expect(readAll(readTedPackage(url))).rejects.toThrow(/options\.http is required/);
  });

  it("rejects a truncated package with TedPackageError, after the notices read before the cut", async () => {
    const { tar } = samplePackage();
    const gz = gzipSync(tar);
    const cut = join(work, "cut.tar.gz");
    await writeFile(cut, gz.subarray(0, Math.floor(gz.length / 2)));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const notice of readTedPackage(cut)) {
        seen.push(notice.name);
      }
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TedPackageError);
    expect(error).toBeInstanceOf(TedSourceError);
    expect(String(error)).toMatch(/corrupt gzip stream in package .*cut\.tar\.gz: unexpected end of file/);
    expect(seen.length).toBeLessThan(4);

    // A complete gzip of a tar that stops inside an entry's data.
    const inside = join(work, "inside.tar.gz");
    await writeFile(inside, gzipSync(tar.subarray(0, 512 * 3 + 100)));
    await expect(readAll(readTedPackage(inside))).rejects.toThrow(
      /corrupt tar archive .*inside\.tar\.gz: the archive ends inside 20240102_002\/00402363_2023\.xml .*truncated/,
    );
    // Or inside a header.
    const header = join(work, "header.tar.gz");
    await writeFile(header, gzipSync(tar.subarray(0, 700)));
    await expect(readAll(readTedPackage(header))).rejects.toThrow(/ends inside a header/);
  });

  it("rejects files that are not gzip, or gzip of something that is not a tar", async () => {
    const plain = join(work, "plain.tar.gz");
    await writeFile(plain, samplePackage().tar);
    await expect(readAll(readTedPackage(plain))).rejects.toThrow(
      /corrupt gzip stream .*\(not gzip, or corrupt\)/,
    );

    const notTar = join(work, "xml.tar.gz");
    await writeFile(notTar, gzipSync(fixture(fixtureAt(0))));
    const error = await readAll(readTedPackage(notTar)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TedPackageError);
    expect(String(error)).toMatch(/header checksum mismatch/);

    const empty = join(work, "empty.tar.gz");
    await writeFile(empty, "");
    await expect(readAll(readTedPackage(empty))).rejects.toThrow(TedPackageError);
  });

  it("fails on an undecodable notice, or skips and reports it with onSkip", async () => {
    const latin1 = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><TED_EXPORT>caf\xe9</TED_EXPORT>',
      "latin1",
    );
    const tar = buildTar([
      { name: "a.xml", data: fixture(fixtureAt(0)) },
      { name: "b.xml", data: latin1 },
      { name: "c.xml", data: Buffer.alloc(200_000, 0x20) },
      { name: "d.xml", data: fixture(fixtureAt(2)) },
    ]);
    const path = join(work, "mixed.tgz");
    await writeFile(path, gzipSync(tar));
    await expect(readAll(readTedPackage(path))).rejects.toThrow(
      /entry b\.xml in .*mixed\.tgz: not valid UTF-8/,
    );

    const skipped: TedNoticeSkip[] = [];
    const options: TedPackageOptions = { onSkip: (skip) => skipped.push(skip), maxNoticeBytes: 100_000 };
    const names = (await readAll(readTedPackage(path, options))).map((n) => n.name);
    expect(names).toEqual(["a.xml", "d.xml"]);
    expect(skipped).toEqual([
      { name: "b.xml", reason: "not valid UTF-8" },
      { name: "c.xml", reason: "200000 bytes, more than the 100000 a notice may have" },
    ]);
    // Without onSkip, an oversized notice fails the read too.
    const big = join(work, "big.tgz");
    await writeFile(big, gzipSync(buildTar([{ name: "c.xml", data: Buffer.alloc(200_000, 0x20) }])));
    await expect(readAll(readTedPackage(big, { maxNoticeBytes: 100_000 }))).rejects.toThrow(
      /entry c\.xml in .*big\.tgz: 200000 bytes/,
    );
  });

  it("accepts an archive without end-of-archive blocks, and ignores what follows them", async () => {
    const body = fixture(fixtureAt(0));
    const noEnd = join(work, "no-end.tar.gz");
    await writeFile(noEnd, gzipSync(buildTar([{ name: "a.xml", data: body }], false)));
    expect((await readAll(readTedPackage(noEnd))).map((n) => n.name)).toEqual(["a.xml"]);

    const trailing = join(work, "trailing.tar.gz");
    const withJunk = Buffer.concat([
      buildTar([{ name: "a.xml", data: body }]),
      Buffer.from("junk".repeat(300)),
    ]);
    await writeFile(trailing, gzipSync(withJunk));
    expect((await readAll(readTedPackage(trailing))).map((n) => n.name)).toEqual(["a.xml"]);
  });

  it("streams a package of 5,000 notices without holding the archive in memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const notice = fixture("eforms-cn-00615708-2023-FIN-ict-framework.xml");
    const noticeText = notice.toString("utf8");
    const count = 5000;
    const path = join(work, "big.tar.gz");
    async function* blocks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < count; i++) {
        yield* tarEntry({ name: `20240103_003/${String(i).padStart(8, "0")}_2024.xml`, data: notice });
      }
      yield Buffer.alloc(1024);
    }
    await pipeline(Readable.from(blocks()), createGzip({ level: 1 }), createWriteStream(path));
    const uncompressed = count * (512 + Math.ceil(notice.length / 512) * 512);
    expect(uncompressed).toBeGreaterThan(150 * 1024 * 1024);

    const used = (): number => {
      const memory = process.memoryUsage();
      return memory.heapUsed + memory.arrayBuffers;
    };
    gc();
    const baseline = used();
    let peak = 0;
    let seen = 0;
    let last = "";
    for await (const item of readTedPackage(path)) {
      seen++;
      last = item.name;
      if (item.xml !== noticeText) {
        throw new Error(`notice ${item.name} differs from the fixture`);
      }
      if (seen % 500 === 0) {
        gc();
        peak = Math.max(peak, used() - baseline);
      }
    }
    expect(seen).toBe(count);
    expect(last).toBe("20240103_003/00004999_2024.xml");
    // Buffering the archive would retain > 150 MB; streaming keeps a chunk and one notice.
    expect(peak).toBeLessThan(32 * 1024 * 1024);
  });
});

describe("readTedFiles", () => {
  it("reads a directory of notices sorted by name, contents as on disk", async () => {
    const notices = await readAll(readTedFiles(FIXTURE_DIR));
    expect(notices.map((n) => n.name)).toEqual([...FIXTURES].sort());
    expect(FIXTURES.length).toBeGreaterThanOrEqual(10); // PROVENANCE.md is not among them
    for (const notice of notices) {
      expect(notice.xml).toBe(fixture(notice.name).toString("utf8"));
    }
  });

  it("walks subdirectories, skips hidden entries, follows file links and reads a single file", async () => {
    const dir = join(work, "extracted");
    await mkdir(join(dir, "20240102_002", "nested"), { recursive: true });
    await mkdir(join(dir, ".hidden"));
    await writeFile(join(dir, "b.xml"), fixture(fixtureAt(1)));
    await writeFile(join(dir, "20240102_002", "a.XML"), fixture(fixtureAt(0)));
    await writeFile(join(dir, "20240102_002", "nested", "c.xml"), fixture(fixtureAt(2)));
    await writeFile(join(dir, "20240102_002", "notes.txt"), "ignored");
    await writeFile(join(dir, ".hidden", "d.xml"), fixture(fixtureAt(3)));
    await writeFile(join(dir, ".e.xml"), fixture(fixtureAt(4)));
    await symlink(join(FIXTURE_DIR, fixtureAt(5)), join(dir, "linked.xml"));
    await symlink(join(dir, "20240102_002"), join(dir, "loop.xml"));

    const notices = await readAll(readTedFiles(dir));
    expect(notices.map((n) => n.name)).toEqual([
      "20240102_002/a.XML",
      "20240102_002/nested/c.xml",
      "b.xml",
      "linked.xml",
    ]);
    expect(notices[3]?.xml).toBe(fixture(fixtureAt(5)).toString("utf8"));

    const single = await readAll(readTedFiles(join(dir, "20240102_002", "notes.txt")));
    expect(single).toEqual([{ name: "notes.txt", xml: "ignored" }]);
    await expect(readAll(readTedFiles(join(work, "missing")))).rejects.toThrow(/ENOENT/);
  });

  it("fails on a file that is not UTF-8 unless onSkip is given, and drops a byte-order mark", async () => {
    const dir = join(work, "files");
    await mkdir(dir);
    await writeFile(join(dir, "a.xml"), Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from("<a/>")]));
    await writeFile(join(dir, "b.xml"), Buffer.from([0x3c, 0x62, 0x3e, 0xe9, 0x3c, 0x2f, 0x62, 0x3e]));
    await expect(readAll(readTedFiles(dir))).rejects.toThrow(/notice file .*b\.xml: not valid UTF-8/);
    const skipped: TedNoticeSkip[] = [];
    const notices = await readAll(readTedFiles(dir, { onSkip: (skip) => skipped.push(skip) }));
    expect(notices).toEqual([{ name: "a.xml", xml: "<a/>" }]);
    expect(skipped).toEqual([{ name: "b.xml", reason: "not valid UTF-8" }]);
  });
});

describe("classifyTedSource", () => {
  it("tells the API, package URLs, packages, files and directories apart", async () => {
    const pkg = join(work, "202400001.tar.gz");
    const tgz = join(work, "monthly.TGZ");
    const xml = join(work, "notice.xml");
    await writeFile(pkg, "");
    await writeFile(tgz, "");
    await writeFile(xml, "");
    expect(await classifyTedSource("https://api.ted.europa.eu")).toBe("api");
    expect(await classifyTedSource("https://api.ted.europa.eu/v3/notices/search")).toBe("api");
    expect(await classifyTedSource("https://ted.europa.eu/packages/daily/202400001")).toBe("package-url");
    expect(await classifyTedSource("https://ted.europa.eu/packages/monthly/2024-1")).toBe("package-url");
    expect(await classifyTedSource("http://127.0.0.1:8080/files/202400001.tar.gz")).toBe("package-url");
    expect(await classifyTedSource("http://mirror.test/x.tgz?sig=1")).toBe("package-url");
    expect(await classifyTedSource(pkg)).toBe("package");
    expect(await classifyTedSource(tgz)).toBe("package");
    expect(await classifyTedSource(pathToFileURL(pkg).href)).toBe("package");
    expect(await classifyTedSource(xml)).toBe("file");
    expect(await classifyTedSource(work)).toBe("dir");
    await expect(classifyTedSource(join(work, "nope.xml"))).rejects.toThrow(/ENOENT/);
  });
});
