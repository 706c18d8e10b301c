import { TedPackageError } from "./errors.ts";

/**
 * A streaming reader for tar archives (POSIX ustar and pax, plus GNU long names), enough for TED's bulk
 * packages: a daily package is one OJ S issue of ~3,000 small XML notices (ted.md §4), a monthly one far
 * more, so entries are read one at a time straight off the decompressed stream, and memory holds one input
 * chunk plus at most one selected entry. Unselected entries are skipped without being kept.
 *
 * Layout: each entry is a 512-byte header then its data padded to a multiple of 512 bytes; the archive ends
 * with (normally two) all-zero blocks. Header fields are NUL-terminated ASCII, numbers octal (or GNU
 * base-256 for sizes ≥ 8 GiB). A name longer than 100 bytes is split into ustar `prefix` + `name`, or
 * carried by a preceding pax `x` header (`path=`) or GNU `L` entry.
 */

const BLOCK = 512;
/** A pax or GNU long-name header is a few hundred bytes; more means a damaged archive. */
const MAX_META_BYTES = 1024 * 1024;

/** One selected regular file of the archive. */
export interface TarFile {
  /** The entry's full path inside the archive, e.g. `20260817_157/00566194_2026.xml`. */
  name: string;
  data: Buffer;
}

/** A regular file the caller selected but that was not delivered (too large to buffer). */
export interface TarSkip {
  name: string;
  reason: string;
}

/** How `readTarFiles` names the archive and picks its files. */
export interface TarReadOptions {
  /** Names the archive in errors (its path or URL). */
  label: string;
  /** Which regular files to read into memory; every other entry is skipped unread. */
  select: (name: string) => boolean;
  /** A selected file larger than this is skipped and reported to `onSkip` (or fails without it). */
  maxFileBytes: number;
  onSkip?: (skip: TarSkip) => void;
}

/**
 * Yields the selected regular files of the tar stream `input`, in archive order. Directories, links,
 * devices, pax global headers and unselected files are skipped.
 *
 * Throws `TedPackageError` for a header whose checksum does not match (not a tar, or corrupt), a malformed
 * number or pax record, and an archive that ends inside a header or an entry's data (truncated). An archive
 * that ends cleanly between entries without the end-of-archive blocks is accepted, as GNU tar and Python's
 * tarfile do (the gzip layer's CRC and length check catch a cut there). Once the end-of-archive block is read
 * the rest of the input is not read.
 */
export async function* readTarFiles(
  input: AsyncIterable<Uint8Array>,
  options: TarReadOptions,
): AsyncGenerator<TarFile, void, undefined> {
  const reader = new ByteReader(input);
  const fail = (message: string): TedPackageError =>
    new TedPackageError(`corrupt tar archive ${options.label}: ${message}`);
  // Metadata that applies to the next entry only.
  let paxPath: string | null = null;
  let paxSize: number | null = null;
  let longName: string | null = null;
  try {
    for (;;) {
      const header = await reader.read(BLOCK);
      if (header.length === 0) {
        return;
      }
      if (header.length < BLOCK) {
        throw fail(`the archive ends inside a header (${header.length} of ${BLOCK} bytes; truncated?)`);
      }
      if (isZeroBlock(header)) {
        return;
      }
      checkChecksum(header, fail);
      const type = String.fromCharCode(header[156] ?? 0);
      const isMeta = type === "x" || type === "L";
      // A pax size describes the entry after the pax header, never another metadata entry.
      const headerSize = readNumber(header, 124, 12, "size", fail);
      const size = isMeta ? headerSize : (paxSize ?? headerSize);
      const name = paxPath ?? longName ?? headerName(header);
      const padded = Math.ceil(size / BLOCK) * BLOCK;

      if (isMeta) {
        if (size > MAX_META_BYTES) {
          throw fail(`a ${type === "x" ? "pax" : "GNU long-name"} header of ${size} bytes`);
        }
        const data = await readExactly(reader, padded, `the ${type} header before ${name}`, fail);
        if (type === "x") {
          const records = parsePax(data.subarray(0, size), fail);
          paxPath = records.get("path") ?? paxPath;
          const paxSizeText = records.get("size");
          if (paxSizeText !== undefined) {
            if (!/^\d+$/.test(paxSizeText)) {
              throw fail(`pax size ${JSON.stringify(paxSizeText)} is not a number`);
            }
            paxSize = Number(paxSizeText);
          }
        } else {
          longName = cString(data.subarray(0, size));
        }
        continue;
      }
      paxPath = null;
      paxSize = null;
      longName = null;

      // '0', NUL (pre-POSIX) and '7' (contiguous) are regular files; everything else is skipped.
      const regular = type === "0" || type === "\0" || type === "7";
      if (!regular || !options.select(name)) {
        await skipExactly(reader, padded, name, fail);
        continue;
      }
      if (size > options.maxFileBytes) {
        const reason = `${size} bytes, more than the ${options.maxFileBytes} a notice may have`;
        if (options.onSkip === undefined) {
          throw new TedPackageError(`entry ${name} in ${options.label}: ${reason}`);
        }
        options.onSkip({ name, reason });
        await skipExactly(reader, padded, name, fail);
        continue;
      }
      const data = await readExactly(reader, padded, name, fail);
      yield { name, data: data.subarray(0, size) };
    }
  } finally {
    await reader.close();
  }
}

/** Pulls exact byte counts out of a chunked stream, holding only what was pulled but not yet consumed. */
class ByteReader {
  readonly #iterator: AsyncIterator<Uint8Array>;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #done = false;

  constructor(input: AsyncIterable<Uint8Array>) {
    this.#iterator = input[Symbol.asyncIterator]();
  }

  /** Up to `n` bytes; fewer only at the end of the input. */
  async read(n: number): Promise<Buffer> {
    while (this.#buffered < n && (await this.#pull())) {
      // keep pulling
    }
    return this.#take(Math.min(n, this.#buffered));
  }

  /** Drops up to `n` bytes without keeping them; returns how many were dropped. */
  async skip(n: number): Promise<number> {
    let skipped = 0;
    while (skipped < n) {
      if (this.#buffered === 0 && !(await this.#pull())) {
        break;
      }
      const part = Math.min(n - skipped, this.#buffered);
      this.#take(part);
      skipped += part;
    }
    return skipped;
  }

  async close(): Promise<void> {
    if (!this.#done) {
      this.#done = true;
      await this.#iterator.return?.();
    }
  }

  async #pull(): Promise<boolean> {
    if (this.#done) {
      return false;
    }
    const next = await this.#iterator.next();
    if (next.done) {
      this.#done = true;
      return false;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    return true;
  }

  #take(n: number): Buffer {
    const first = this.#chunks[0];
    if (first !== undefined && first.length >= n) {
      // The common case (a header or a small entry inside one chunk): a view, no copy.
      const out = first.subarray(0, n);
      if (first.length === n) {
        this.#chunks.shift();
      } else {
        this.#chunks[0] = first.subarray(n);
      }
      this.#buffered -= n;
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.#chunks[0];
      if (chunk === undefined) {
        break;
      }
      const part = Math.min(n - filled, chunk.length);
      chunk.copy(out, filled, 0, part);
      filled += part;
      if (part === chunk.length) {
        this.#chunks.shift();
      } else {
        this.#chunks[0] = chunk.subarray(part);
      }
    }
    this.#buffered -= filled;
    return out.subarray(0, filled);
  }
}

type Fail = (message: string) => TedPackageError;

async function readExactly(reader: ByteReader, n: number, what: string, fail: Fail): Promise<Buffer> {
  const data = await reader.read(n);
  if (data.length < n) {
    throw fail(`the archive ends inside ${what} (${data.length} of ${n} bytes; truncated?)`);
  }
  return data;
}

async function skipExactly(reader: ByteReader, n: number, what: string, fail: Fail): Promise<void> {
  const skipped = await reader.skip(n);
  if (skipped < n) {
    throw fail(`the archive ends inside ${what} (${skipped} of ${n} bytes; truncated?)`);
  }
}

function isZeroBlock(block: Buffer): boolean {
  for (const byte of block) {
    if (byte !== 0) {
      return false;
    }
  }
  return true;
}

/** The header checksum: the sum of its bytes with the checksum field read as spaces (signed sums too). */
function checkChecksum(header: Buffer, fail: Fail): void {
  const stored = readNumber(header, 148, 8, "checksum", fail);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  if (stored !== unsigned && stored !== signed) {
    throw fail(
      `header checksum mismatch (stored ${stored}, computed ${unsigned}): not a tar archive, or damaged`,
    );
  }
}

/** An octal field (NUL/space padded), or GNU base-256 when the first byte has its high bit set. */
function readNumber(header: Buffer, offset: number, length: number, field: string, fail: Fail): number {
  const first = header[offset] ?? 0;
  if (first & 0x80) {
    if (first === 0xff) {
      throw fail(`negative ${field} field`);
    }
    let value = first & 0x7f;
    for (let i = offset + 1; i < offset + length; i++) {
      value = value * 256 + (header[i] ?? 0);
    }
    if (!Number.isSafeInteger(value)) {
      throw fail(`${field} field out of range`);
    }
    return value;
  }
  const text = header
    .subarray(offset, offset + length)
    .toString("latin1")
    .replace(/[\0 ]+$/, "")
    .replace(/^[ ]+/, "");
  if (text === "") {
    return 0;
  }
  if (!/^[0-7]+$/.test(text)) {
    throw fail(`${field} field ${JSON.stringify(text)} is not an octal number`);
  }
  return Number.parseInt(text, 8);
}

/** `prefix/name` for ustar headers with a prefix, else `name`. */
function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const magic = header.subarray(257, 263).toString("latin1");
  // POSIX ustar has "ustar\0"; GNU's "ustar " uses the prefix bytes for other data (atime, ctime).
  if (magic === "ustar\0") {
    const prefix = cString(header.subarray(345, 500));
    if (prefix !== "") {
      return `${prefix}/${name}`;
    }
  }
  return name;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString("utf8");
}

/** Pax records: `"<length> <key>=<value>\n"`, the length in bytes counting the whole record. */
function parsePax(data: Buffer, fail: Fail): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    if (data[at] === 0) {
      break; // NUL padding after the last record
    }
    const space = data.indexOf(0x20, at);
    const lengthText = space === -1 ? "" : data.subarray(at, space).toString("latin1");
    const length = /^\d+$/.test(lengthText) ? Number(lengthText) : Number.NaN;
    if (!(length > 0) || at + length > data.length || data[at + length - 1] !== 0x0a) {
      throw fail("malformed pax extended header");
    }
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    const equals = record.indexOf("=");
    if (equals <= 0) {
      throw fail("malformed pax extended header");
    }
    records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}
