import type { Dirent } from "node:fs";
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pipeline } from "node:stream";
import { fileURLToPath } from "node:url";
import { createGunzip } from "node:zlib";
import { downloadToFile } from "../../sources/download.ts";
import type { HttpOptions } from "../../sources/http.ts";
import { TedPackageError, TedSourceError } from "./errors.ts";
import type { TarSkip } from "./tar.ts";
import { readTarFiles } from "./tar.ts";
import { decodeUtf8, MAX_NOTICE_BYTES } from "./text.ts";

/**
 * TED notices from bulk packages and local files, without the API: a daily package (`.tar.gz` of one XML
 * per notice for one OJ S issue, ted.md §4) read from disk or downloaded, an extracted package directory, or
 * a single notice file. Each notice is yielded whole as text, because notices are small (a few KB to ~1 MB)
 * and the pipeline both hashes and parses that exact text; a package itself is never held in memory.
 */

/** One notice document: where it came from and its XML text (UTF-8 decoded, byte-order mark dropped). */
export interface TedNoticeFile {
  /** The entry path inside a package (`20260817_157/00566194_2026.xml`), or the file's path in a directory. */
  name: string;
  xml: string;
}

/** A notice that could not be delivered and was skipped (see `onSkip`). */
export type TedNoticeSkip = TarSkip;

/** Options of `readTedPackage`. */
export interface TedPackageOptions {
  /** Required for a package URL. */
  http?: HttpOptions;
  /** Where a remote package is downloaded (a fresh subdirectory, removed afterwards); default `os.tmpdir()`. */
  tmpDir?: string;
  /**
   * Called for a notice that cannot be delivered (not valid UTF-8, or larger than `maxNoticeBytes`), which
   * is then skipped so one damaged notice does not stop a package of thousands. Without it such a notice
   * fails the read with `TedPackageError`.
   */
  onSkip?: (skip: TedNoticeSkip) => void;
  /** Largest notice read into memory; default `MAX_NOTICE_BYTES` (real notices are at most a few MB). */
  maxNoticeBytes?: number;
}

/** Options of `readTedFiles`. */
export interface TedFilesOptions {
  /** As for packages: called for a file that is not valid UTF-8 or too large, which is then skipped. */
  onSkip?: (skip: TedNoticeSkip) => void;
  /** Largest file read into memory; default `MAX_NOTICE_BYTES`. A larger one is never read. */
  maxNoticeBytes?: number;
}

/** Where TED notices come from: the Search API, a package (remote or local), a notice file or a directory. */
export type TedSourceKind = "api" | "package-url" | "package" | "file" | "dir";

/**
 * Classifies a source string. An http(s) URL is a `package-url` when its path ends in `.tar.gz` or `.tgz`
 * or lies under `/packages/daily/` or `/packages/monthly/` (TED serves packages without an extension, e.g.
 * `https://ted.europa.eu/packages/daily/202400001`), otherwise `api` (the Search API base URL). A local path
 * (or `file:` URL) is `dir` if it is a directory, else `package` by its `.tar.gz`/`.tgz` extension, else
 * `file`. Rejects if a local path does not exist.
 */
export async function classifyTedSource(source: string): Promise<TedSourceKind> {
  const url = httpUrl(source);
  if (url !== null) {
    return isPackageName(url.pathname) || /\/packages\/(daily|monthly)\//i.test(url.pathname)
      ? "package-url"
      : "api";
  }
  const path = localPath(source);
  if ((await stat(path)).isDirectory()) {
    return "dir";
  }
  return isPackageName(path) ? "package" : "file";
}

/**
 * Yields the XML notices of a bulk package, in archive order, one at a time: gunzip → tar → each `*.xml`
 * regular file (any folder inside; AppleDouble `._*` and `__MACOSX/` entries, directories, links and other
 * files are ignored). Names are full entry paths, long ones included (ustar prefix, pax `path`, GNU `L`).
 *
 * `source` is a local path, a `file:` URL or an http(s) URL; a URL is first streamed to a temporary file with
 * `downloadToFile` (so its retries apply) under `options.tmpDir`, and that file is deleted when the iteration
 * ends, whether it completes, fails or the caller breaks out.
 *
 * Throws `TedPackageError` when the file is not gzip, the compressed stream is corrupt or truncated, or the
 * tar inside is (see `readTarFiles`); notices before the damage have been yielded by then. A download
 * failure is `downloadToFile`'s (`FetchError`).
 */
export async function* readTedPackage(
  source: string,
  options: TedPackageOptions = {},
): AsyncGenerator<TedNoticeFile, void, undefined> {
  const url = httpUrl(source);
  if (url === null) {
    yield* readLocalPackage(localPath(source), source, options);
    return;
  }
  if (options.http === undefined) {
    throw new TypeError(`readTedPackage: ${source} is a URL, so options.http is required`);
  }
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), "ted-package-"));
  try {
    const file = join(dir, "package.tar.gz");
    await downloadToFile(source, file, options.http);
    // The inner generator closes its streams before this finally removes the file (yield* forwards return()).
    yield* readLocalPackage(file, source, options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function* readLocalPackage(
  path: string,
  label: string,
  options: TedPackageOptions,
): AsyncGenerator<TedNoticeFile, void, undefined> {
  const file = createReadStream(path);
  const gunzip = createGunzip();
  // Errors of either stream surface when iterating `gunzip`; pipeline destroys both on error.
  pipeline(file, gunzip, () => undefined);
  const onSkip = options.onSkip;
  try {
    const entries = readTarFiles(guardGzip(gunzip, label), {
      label,
      select: isNoticeName,
      maxFileBytes: options.maxNoticeBytes ?? MAX_NOTICE_BYTES,
      onSkip,
    });
    for await (const entry of entries) {
      const xml = decodeUtf8(entry.data);
      if (xml === null) {
        const reason = "not valid UTF-8";
        if (onSkip === undefined) {
          throw new TedPackageError(`entry ${entry.name} in ${label}: ${reason}`);
        }
        onSkip({ name: entry.name, reason });
        continue;
      }
      yield { name: entry.name, xml };
    }
  } finally {
    gunzip.destroy();
    file.destroy();
  }
}

/** The decompressed bytes; zlib's errors (bad magic, bad data, cut-off stream) become `TedPackageError`. */
async function* guardGzip(stream: AsyncIterable<Uint8Array>, label: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) {
      yield chunk;
    }
  } catch (err) {
    const code = typeof err === "object" && err !== null && "code" in err ? String(err.code) : "";
    if (!code.startsWith("Z_")) {
      throw err;
    }
    const message = err instanceof Error ? err.message : String(err);
    const hint = code === "Z_DATA_ERROR" ? " (not gzip, or corrupt)" : " (truncated?)";
    throw new TedPackageError(`corrupt gzip stream in package ${label}: ${message}${hint}`, { cause: err });
  }
}

/**
 * Yields TED notice files from a local path: a single file as it is, whatever its extension (name = its base
 * name), or every `*.xml` file under a directory, **recursively** (an extracted package keeps its
 * `yyyymmdd_issue/` folder), sorted by relative path in code-unit order, named by that `/`-separated path.
 * Hidden entries (`.name`) are ignored; symbolic links to files are followed, to directories not (no
 * cycles).
 *
 * Throws `TedSourceError` for a file that is not valid UTF-8, or larger than `maxNoticeBytes` (checked before
 * reading it), unless `options.onSkip` is given; file-system errors (a missing path, permissions) are rethrown
 * as they are.
 */
export async function* readTedFiles(
  source: string,
  options: TedFilesOptions = {},
): AsyncGenerator<TedNoticeFile, void, undefined> {
  const path = localPath(source);
  if (!(await stat(path)).isDirectory()) {
    const notice = await readNoticeFile(path, basename(path), options);
    if (notice !== null) {
      yield notice;
    }
    return;
  }
  const names = (await listXmlFiles(path, "")).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const notice = await readNoticeFile(join(path, ...name.split("/")), name, options);
    if (notice !== null) {
      yield notice;
    }
  }
}

async function readNoticeFile(
  path: string,
  name: string,
  options: TedFilesOptions,
): Promise<TedNoticeFile | null> {
  const maxBytes = options.maxNoticeBytes ?? MAX_NOTICE_BYTES;
  const { size } = await stat(path);
  let reason: string;
  if (size > maxBytes) {
    // Never read: a 300 MB file would cost several times its size in memory.
    reason = `${size} bytes, more than the ${maxBytes} a notice may have`;
  } else {
    const xml = decodeUtf8(await readFile(path));
    if (xml !== null) {
      return { name, xml };
    }
    reason = "not valid UTF-8";
  }
  if (options.onSkip === undefined) {
    throw new TedSourceError(`notice file ${path}: ${reason}`);
  }
  options.onSkip({ name, reason });
  return null;
}

async function listXmlFiles(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  const items: Dirent[] = await readdir(dir, { withFileTypes: true });
  for (const item of items) {
    if (item.name.startsWith(".")) {
      continue;
    }
    const relative = prefix === "" ? item.name : `${prefix}/${item.name}`;
    if (item.isDirectory()) {
      out.push(...(await listXmlFiles(join(dir, item.name), relative)));
    } else if (/\.xml$/i.test(item.name) && (item.isFile() || (await isLinkToFile(join(dir, item.name))))) {
      out.push(relative);
    }
  }
  return out;
}

async function isLinkToFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false; // a dangling link
  }
}

/** An XML entry that is a notice, not resource-fork junk from a macOS archiver. */
function isNoticeName(name: string): boolean {
  return /\.xml$/i.test(name) && !basename(name).startsWith("._") && !/(^|\/)__MACOSX\//.test(name);
}

function isPackageName(path: string): boolean {
  return /\.(tar\.gz|tgz)$/i.test(path);
}

function httpUrl(source: string): URL | null {
  return /^https?:\/\//i.test(source) ? new URL(source) : null;
}

function localPath(source: string): string {
  return /^file:\/\//i.test(source) ? fileURLToPath(source) : source;
}
