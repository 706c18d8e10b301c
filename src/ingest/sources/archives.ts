import { createReadStream } from "node:fs";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { downloadToFile } from "./download.ts";
import { walkFeed } from "./feed-walk.ts";
import type { HttpOptions } from "./http.ts";
import { comparePageNames, isAtomPageName } from "./page-order.ts";
import { readZipPages } from "./zip-pages.ts";

/**
 * One entry point for every place PLACSP pages come from: a live feed URL, a ZIP archive (local or remote),
 * a directory of page files, or a single file. Every source yields the same page shape, so the ingestion
 * pipeline has one loop whatever the input.
 */

/** Where pages come from; URLs are told apart by a `.zip` path, local paths by the file system. */
export type SourceKind = "url-feed" | "url-zip" | "file" | "dir" | "zip";

/** One ATOM page, streamed. */
export interface SourcePage {
  /** The URL of a feed page, the path of a ZIP entry inside its archive, or a local file's name. */
  name: string;
  body: AsyncIterable<Uint8Array>;
  /**
   * Reports the page's `rel="next"` href after parsing its header. A live feed follows it (null ends the
   * walk) and requires the call before the next page; archives, directories and files ignore it, because
   * they enumerate their pages by name and their links point at the live site. To stop early, break out.
   */
  setNext(href: string | null): void;
  /** Live feeds only: requests the page again and returns its fresh body (see `FeedPage.refetch`). */
  refetch?: () => Promise<AsyncIterable<Uint8Array>>;
}

export interface PageSourceOptions {
  /** Required for URL sources. */
  http?: HttpOptions;
  /** Stop after this many pages. */
  maxPages?: number;
  /** Where a remote ZIP is downloaded (a fresh subdirectory, removed afterwards); default `os.tmpdir()`. */
  tmpDir?: string;
}

/**
 * Classifies a source string: an http(s) URL whose path ends in `.zip` is `url-zip`, any other http(s) URL
 * `url-feed`; a local path (or `file:` URL) is `dir` if it is a directory, else `zip` by its `.zip`
 * extension, else `file`. Rejects if a local path does not exist.
 */
export async function classifySource(source: string): Promise<SourceKind> {
  const url = httpUrl(source);
  if (url !== null) {
    return /\.zip$/i.test(url.pathname) ? "url-zip" : "url-feed";
  }
  const path = localPath(source);
  if ((await stat(path)).isDirectory()) {
    return "dir";
  }
  return /\.zip$/i.test(path) ? "zip" : "file";
}

/**
 * Yields the ATOM pages of `source` one at a time, each body streamed (never buffered whole):
 * - `url-feed`: the head, then `rel="next"` pages as reported through `setNext` (see `walkFeed`);
 * - `file`: the file itself, whatever its extension;
 * - `dir`: its `*.atom` files (not recursive), newest first by PLACSP name (see `comparePageNames`);
 * - `zip`: its `*.atom` entries (any folder inside), same order;
 * - `url-zip`: downloaded to a temporary file, then as `zip`; the file is deleted when the iteration ends,
 *   whether it completes, fails or the caller breaks out.
 * Other files and entries are ignored. A body left unread when the caller moves on is closed.
 */
export async function* openPageSource(
  source: string,
  options: PageSourceOptions = {},
): AsyncGenerator<SourcePage, void, undefined> {
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (!(maxPages >= 1)) {
    throw new RangeError("openPageSource: maxPages must be >= 1");
  }
  let count = 0;
  for await (const page of pagesOf(source, await classifySource(source), options)) {
    yield page;
    count++;
    if (count >= maxPages) {
      return;
    }
  }
}

function pagesOf(source: string, kind: SourceKind, options: PageSourceOptions): AsyncIterable<SourcePage> {
  switch (kind) {
    case "url-feed":
      return feedPages(source, requireHttp(options, source));
    case "url-zip":
      return remoteZipPages(source, requireHttp(options, source), options.tmpDir ?? tmpdir());
    case "zip":
      return archivePages(readZipPages(localPath(source), source));
    case "dir":
      return dirPages(localPath(source));
    case "file":
      return filePages(localPath(source));
  }
}

async function* feedPages(url: string, http: HttpOptions): AsyncGenerator<SourcePage, void, undefined> {
  for await (const page of walkFeed(url, { http })) {
    yield { name: page.url, body: page.body, setNext: page.setNext, refetch: page.refetch };
  }
}

async function* remoteZipPages(
  url: string,
  http: HttpOptions,
  tmpRoot: string,
): AsyncGenerator<SourcePage, void, undefined> {
  const dir = await mkdtemp(join(tmpRoot, "placsp-zip-"));
  try {
    const file = join(dir, "archive.zip");
    await downloadToFile(url, file, http);
    // The inner generator closes the archive before this finally removes it (yield* forwards return()).
    yield* archivePages(readZipPages(file, url));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function* archivePages(
  pages: AsyncIterable<{ name: string; body: AsyncIterable<Uint8Array> }>,
): AsyncGenerator<SourcePage, void, undefined> {
  for await (const page of pages) {
    yield { name: page.name, body: page.body, setNext: ignoreNext };
  }
}

async function* dirPages(dir: string): AsyncGenerator<SourcePage, void, undefined> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((item) => (item.isFile() || item.isSymbolicLink()) && isAtomPageName(item.name))
    .map((item) => item.name)
    .sort(comparePageNames);
  for (const name of names) {
    yield* filePages(join(dir, name));
  }
}

async function* filePages(path: string): AsyncGenerator<SourcePage, void, undefined> {
  const stream = createReadStream(path);
  try {
    yield { name: basename(path), body: stream, setNext: ignoreNext };
  } finally {
    stream.destroy();
  }
}

function ignoreNext(): void {
  // Archived pages are enumerated by name; their links point at the live site.
}

function requireHttp(options: PageSourceOptions, source: string): HttpOptions {
  if (options.http === undefined) {
    throw new TypeError(`openPageSource: ${source} is a URL, so options.http is required`);
  }
  return options.http;
}

function httpUrl(source: string): URL | null {
  if (!/^https?:\/\//i.test(source)) {
    return null;
  }
  return new URL(source);
}

function localPath(source: string): string {
  return /^file:\/\//i.test(source) ? fileURLToPath(source) : source;
}
