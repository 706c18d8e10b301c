/**
 * A minimal tar writer for tests and benchmarks: ustar headers (with the name/prefix split), pax and GNU long
 * names, any typeflag. Enough to build TED-like daily packages and the damaged archives the reader must
 * refuse; gzip them with zlib.
 */

export interface TarInput {
  name: string;
  data?: Uint8Array;
  /** Typeflag; default "0" (regular file). */
  type?: string;
  /** How to store a name longer than 100 bytes; default: split into ustar prefix + name. */
  longName?: "prefix" | "pax" | "gnu";
}

function field(header: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > length) {
    throw new Error(`tar field too long: ${value}`);
  }
  bytes.copy(header, offset);
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

function header(name: string, size: number, type: string, prefix = ""): Buffer {
  const block = Buffer.alloc(512);
  field(block, 0, 100, name);
  field(block, 100, 8, octal(0o644, 8));
  field(block, 108, 8, octal(0, 8));
  field(block, 116, 8, octal(0, 8));
  field(block, 124, 12, octal(size, 12));
  field(block, 136, 12, octal(1_700_000_000, 12));
  field(block, 148, 8, "        ");
  field(block, 156, 1, type);
  field(block, 257, 6, "ustar\0");
  field(block, 263, 2, "00");
  field(block, 345, 155, prefix);
  let sum = 0;
  for (const byte of block) {
    sum += byte;
  }
  field(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

function padded(data: Uint8Array): Buffer[] {
  const rest = data.length % 512;
  return rest === 0 ? [Buffer.from(data)] : [Buffer.from(data), Buffer.alloc(512 - rest)];
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) {
    length = String(length).length + Buffer.byteLength(body);
  }
  return `${length}${body}`;
}

/** One entry as its blocks: header(s), then the data padded to 512 bytes. */
export function tarEntry(input: TarInput): Buffer[] {
  const data = input.data ?? new Uint8Array();
  const type = input.type ?? "0";
  const name = input.name;
  if (Buffer.byteLength(name) <= 100) {
    return [header(name, data.length, type), ...padded(data)];
  }
  switch (input.longName ?? "prefix") {
    case "prefix": {
      const cut = name.lastIndexOf("/", name.length - 2);
      const prefix = name.slice(0, cut);
      const rest = name.slice(cut + 1);
      if (cut <= 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(rest) > 100) {
        throw new Error(`cannot split ${name} into ustar prefix and name`);
      }
      return [header(rest, data.length, type, prefix), ...padded(data)];
    }
    case "pax": {
      const records = Buffer.from(paxRecord("path", name));
      return [
        header("PaxHeaders.0/truncated", records.length, "x"),
        ...padded(records),
        header(name.slice(0, 100), data.length, type),
        ...padded(data),
      ];
    }
    case "gnu": {
      const long = Buffer.from(`${name}\0`);
      return [
        header("././@LongLink", long.length, "L"),
        ...padded(long),
        header(name.slice(0, 100), data.length, type),
        ...padded(data),
      ];
    }
  }
}

/** A whole archive; `end: false` leaves out the two end-of-archive blocks. */
export function buildTar(entries: TarInput[], end = true): Buffer {
  return Buffer.concat([...entries.flatMap(tarEntry), ...(end ? [Buffer.alloc(1024)] : [])]);
}

/** The two zero blocks that end an archive (after the last `tarEntry`, when streaming). */
export const TAR_END: Buffer = Buffer.alloc(1024);
