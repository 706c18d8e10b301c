import type { Readable } from "node:stream";
import type { Entry, ZipFile } from "yauzl";
import { open } from "yauzl";
import { comparePageNames, isAtomPageName } from "./page-order.ts";

/**
 * Reads the `.atom` pages of a ZIP archive on disk one entry at a time. PLACSP archives reach ~2 GB with
 * ~1,400 pages, so only the central directory (a few hundred bytes per entry) is held in memory and each
 * entry is inflated as a stream straight from the file (yauzl reads by offset, ZIP64 included).
 */

/** The archive is not a readable ZIP, or one of its `.atom` entries is damaged. */
export class ZipArchiveError extends Error {
  override readonly name = "ZipArchiveError";
}

/** One `.atom` entry: its path inside the archive and its inflated bytes. */
export interface ZipPage {
  name: string;
  body: AsyncIterable<Uint8Array>;
}

/**
 * Yields every `*.atom` entry of the ZIP at `path`, newest page first (`comparePageNames`), ignoring other
 * entries. `label` names the archive in errors (the URL it came from, say). Throws `ZipArchiveError` when
 * the file is not a ZIP or is truncated, and from a page body when the entry's data is corrupt. An entry
 * left unread when the caller moves on is closed; the archive is closed when the iteration ends.
 */
export async function* readZipPages(path: string, label = path): AsyncGenerator<ZipPage, void, undefined> {
  const zip = await openZip(path, label);
  try {
    const entries = await listEntries(zip, label);
    const pages = entries
      .filter((entry) => !entry.fileName.endsWith("/") && isAtomPageName(entry.fileName))
      .sort((a, b) => comparePageNames(a.fileName, b.fileName));
    for (const entry of pages) {
      const stream = await openEntry(zip, entry, label);
      try {
        yield { name: entry.fileName, body: guardEntry(stream, label, entry.fileName) };
      } finally {
        stream.destroy();
      }
    }
  } finally {
    zip.close();
  }
}

function openZip(path: string, label: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // autoClose off: we open entries after listing them all (to sort), so the file must stay open.
    open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, zip) => {
      if (err) {
        reject(new ZipArchiveError(`corrupt ZIP archive ${label}: ${err.message}`, { cause: err }));
      } else {
        resolve(zip);
      }
    });
  });
}

function listEntries(zip: ZipFile, label: string): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on("entry", (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once("end", () => resolve(entries));
    // Stays attached after listing: a later ZipFile error would otherwise be an unhandled 'error' event.
    zip.on("error", (err: Error) => {
      reject(new ZipArchiveError(`corrupt ZIP archive ${label}: ${err.message}`, { cause: err }));
    });
    zip.readEntry();
  });
}

function openEntry(zip: ZipFile, entry: Entry, label: string): Promise<Readable> {
  const fail = (err: Error): ZipArchiveError =>
    new ZipArchiveError(`cannot read ${entry.fileName} in ZIP archive ${label}: ${err.message}`, {
      cause: err,
    });
  return new Promise((resolve, reject) => {
    try {
      zip.openReadStream(entry, (err, stream) => {
        if (err) {
          reject(fail(err));
        } else {
          resolve(stream);
        }
      });
    } catch (err) {
      // yauzl throws synchronously for entries it cannot decode (encryption, unknown compression).
      reject(err instanceof Error ? fail(err) : err);
    }
  });
}

/** The entry's bytes, with inflate and size errors reported as a damaged archive naming the entry. */
async function* guardEntry(stream: Readable, label: string, name: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) {
      yield chunk as Uint8Array;
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ZipArchiveError(`corrupt entry ${name} in ZIP archive ${label}: ${message}`, { cause: err });
  }
}
