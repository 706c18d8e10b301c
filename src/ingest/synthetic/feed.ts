import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ENTRY_ID_PREFIX, renderEntry, SYNTHETIC_BASE } from "./codice.ts";
import type { Folder } from "./folder.ts";
import { planFolder } from "./folder.ts";
import type { PartyPools } from "./parties.ts";
import { buildParties } from "./parties.ts";
import { deriveSeed, Rng } from "./random.ts";
import { DAY_MS, fileStamp, formatInstant } from "./time.ts";
import { escapeAttr } from "./xml.ts";

/**
 * Synthetic PLACSP licitaciones feed (sindicación 643): ATOM pages of CODICE entries, newest first, linked
 * head → older pages by `rel="next"`, for benchmarks and offline demos. The output goes through the real
 * parser and normalizer unchanged.
 *
 * How it stays streaming: the corpus is generated backwards in time, in exactly the order the feed lists
 * it. New folders arrive as a Poisson process going back from `now`, each at the time of its newest
 * version; a folder's older versions wait in a max-heap keyed by `updated` until the walk reaches them.
 * Only folders with versions still pending are held (about one lifecycle's worth, a few months), and only
 * one page of XML is buffered, so memory does not grow with the size of the corpus.
 */

export interface SyntheticFeedOptions {
  /** Entry versions to write (several versions of one folder count separately). */
  entries: number;
  seed?: number;
  /** Entries per page; PLACSP uses 500. */
  pageSize?: number;
  /** Newest `updated` in the feed; a fixed date by default so output never depends on the clock. */
  now?: Date;
  /** Only the licitaciones feed is modelled. */
  feed?: "643";
  /** How far back the entries reach; 7 years by default (2019–2026 with the default `now`). */
  years?: number;
  /** Size of the winner pool (UTEs come on top); 3,000 by default. */
  companies?: number;
}

export interface SyntheticPage {
  fileName: string;
  xml: string;
  entries: number;
  tombstones: number;
}

export interface WriteResult {
  pages: number;
  entries: number;
  tombstones: number;
  bytes: number;
  /** Paths written, head first. */
  files: string[];
}

export const HEAD_FILE = "licitacionesPerfilesContratanteCompleto3.atom";
const FEED_ID = `${SYNTHETIC_BASE}/sindicacion/sindicacion_643/${HEAD_FILE}`;
const FILE_STEM = HEAD_FILE.replace(/\.atom$/, "");

export const DEFAULT_SEED = 643;
export const DEFAULT_NOW = new Date("2026-06-30T10:00:00.000Z");
const DEFAULT_PAGE_SIZE = 500;

/** Share of folders whose earlier versions the feed also carries (the others show only their newest). */
const MULTI_VERSION_SHARE = 0.3;
/**
 * Average entries per folder given that share (measured on the planner: multi-version folders show about
 * 4.45 versions). Only used to space folders so that `entries` spread over `years`.
 */
const ENTRIES_PER_FOLDER = 0.7 + MULTI_VERSION_SHARE * 4.45;
/** Entry numbers count down from here as the walk goes back in time, so newer folders have higher ids. */
const FIRST_NUMBER = 29_999_999;

const NAMESPACES =
  'xmlns="http://www.w3.org/2005/Atom"' +
  ' xmlns:cbc-place-ext="urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonBasicComponents-2"' +
  ' xmlns:cbc="urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2"' +
  ' xmlns:cac="urn:dgpe:names:draft:codice:schema:xsd:CommonAggregateComponents-2"' +
  ' xmlns:cac-place-ext="urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonAggregateComponents-2"' +
  ' xmlns:at="http://purl.org/atompub/tombstones/1.0"' +
  ' xmlns:ns7="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"';

interface Pending {
  at: number;
  folder: Folder;
  version: number;
}

/** Max-heap of pending versions by `updated` (ties: higher entry number, then later version, first). */
class PendingHeap {
  readonly #items: Pending[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Pending | undefined {
    return this.#items[0];
  }

  static #before(a: Pending, b: Pending): boolean {
    if (a.at !== b.at) {
      return a.at > b.at;
    }
    return a.folder.number !== b.folder.number ? a.folder.number > b.folder.number : a.version > b.version;
  }

  push(item: Pending): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (!p || !PendingHeap.#before(item, p)) {
        break;
      }
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  pop(): Pending | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) {
      return top;
    }
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      let bestItem = last;
      const l = items[left];
      if (l && PendingHeap.#before(l, bestItem)) {
        best = left;
        bestItem = l;
      }
      const r = items[right];
      if (r && PendingHeap.#before(r, bestItem)) {
        best = right;
        bestItem = r;
      }
      if (best === i) {
        break;
      }
      items[i] = bestItem;
      i = best;
    }
    items[i] = last;
    return top;
  }
}

interface Emitted {
  xml: string;
  at: number;
}

/**
 * The backwards walk: yields entries newest first. Tombstones are requested while pages are assembled;
 * they name a folder the walk has not created yet, which is then planned so that it never gets past
 * evaluation and its newest version predates the deletion.
 */
class Walk {
  readonly #seed: number;
  readonly #parties: PartyPools;
  readonly #nowMs: number;
  readonly #total: number;
  readonly #meanGap: number;
  readonly #process: Rng;
  readonly #heap = new PendingHeap();
  /** Creation index → deletion time, for folders a tombstone already names. */
  readonly #doomed = new Map<number, number>();
  #nextFolderAt: number;
  #created = 0;
  #produced = 0;

  constructor(
    options: Required<Pick<SyntheticFeedOptions, "entries" | "seed" | "years" | "companies">> & {
      nowMs: number;
    },
  ) {
    this.#seed = options.seed;
    this.#parties = buildParties(options.seed, { companies: options.companies });
    this.#nowMs = options.nowMs;
    this.#total = options.entries;
    const folders = Math.max(1, options.entries / ENTRIES_PER_FOLDER);
    this.#meanGap = (options.years * 365.25 * DAY_MS) / folders;
    this.#process = new Rng(deriveSeed(options.seed, "process"));
    this.#nextFolderAt = this.#nowMs - this.#process.exponential(this.#meanGap);
  }

  get remaining(): number {
    return this.#total - this.#produced;
  }

  static sourceRef(index: number): string {
    return `${ENTRY_ID_PREFIX}${FIRST_NUMBER - index}`;
  }

  /**
   * Names a folder not created yet for a tombstone at `when` (which is later than anything still to come),
   * or null near the end of the corpus, where that folder might never be reached.
   */
  reserveTombstone(rng: Rng, when: number): string | null {
    const offset = rng.int(0, 3);
    // Reaching creation #k takes at most (pending + 9 per new folder) entries: a folder has ≤ 8 versions.
    if (this.remaining <= this.#heap.size + 9 * (offset + 1) + 1) {
      return null;
    }
    const index = this.#created + offset;
    if (this.#doomed.has(index)) {
      return null;
    }
    this.#doomed.set(index, when);
    return Walk.sourceRef(index);
  }

  next(): Emitted | null {
    if (this.#produced >= this.#total) {
      return null;
    }
    this.#produced++;
    const top = this.#heap.peek();
    if (top && top.at > this.#nextFolderAt) {
      this.#heap.pop();
      return this.#emit(top.folder, top.version);
    }
    return this.#createFolder();
  }

  #createFolder(): Emitted {
    const index = this.#created++;
    const latestMs = Math.floor(this.#nextFolderAt);
    this.#nextFolderAt -= this.#process.exponential(this.#meanGap);
    const { folder, emitted } = planFolder(
      { seed: this.#seed, parties: this.#parties, nowMs: this.#nowMs },
      {
        index,
        number: FIRST_NUMBER - index,
        sourceRef: Walk.sourceRef(index),
        latestMs,
        multiVersion: this.#process.chance(MULTI_VERSION_SHARE),
        doomed: this.#doomed.has(index),
      },
    );
    this.#doomed.delete(index);
    const newest = emitted[emitted.length - 1] ?? 0;
    for (const version of emitted) {
      if (version !== newest) {
        this.#heap.push({ at: folder.versions[version]?.at ?? latestMs, folder, version });
      }
    }
    return this.#emit(folder, newest);
  }

  #emit(folder: Folder, index: number): Emitted {
    const version = folder.versions[index];
    if (!version) {
      throw new Error(`folder ${folder.number} has no version ${index}`);
    }
    return { xml: renderEntry(folder, version), at: version.at };
  }
}

interface PageHeader {
  fileName: string;
  updated: number;
  next: string | null;
  prev: string | null;
}

function renderPage(header: PageHeader, tombstones: readonly string[], entries: readonly string[]): string {
  const links = [`    <link href="${escapeAttr(header.fileName)}" rel="self"/>\n`];
  links.push(`    <link href="${HEAD_FILE}" rel="first"/>\n`);
  if (header.next !== null) {
    links.push(`    <link href="${escapeAttr(header.next)}" rel="next"/>\n`);
  }
  if (header.prev !== null) {
    links.push(`    <link href="${escapeAttr(header.prev)}" rel="prev"/>\n`);
  }
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<feed ${NAMESPACES}>\n` +
    "    <author>\n" +
    "        <name>Generador de datos sintéticos (no es la Plataforma de Contratación del Sector Público)</name>\n" +
    `        <uri>${SYNTHETIC_BASE}</uri>\n` +
    "        <email>datos-sinteticos@synthetic.invalid</email>\n" +
    "    </author>\n" +
    `    <id>${FEED_ID}</id>\n` +
    links.join("") +
    "    <title>Licitaciones sintéticas con la estructura de la Plataforma de Contratación del Sector Público: " +
    "licitacionesPerfilesContratanteCompleto v3</title>\n" +
    `    <updated>${formatInstant(header.updated)}</updated>\n` +
    tombstones.join("") +
    entries.join("") +
    "</feed>\n"
  );
}

function renderTombstone(ref: string, when: number): string {
  return (
    `    <at:deleted-entry ref="${escapeAttr(ref)}" when="${formatInstant(when)}">\n` +
    '        <at:comment type="ANULADA"/>\n' +
    "    </at:deleted-entry>\n"
  );
}

/**
 * The pages of a synthetic feed, head first (`licitacionesPerfilesContratanteCompleto3.atom`, then
 * `…Completo3_YYYYMMDD_HHMMSS.atom` pages, each named after its newest entry, Madrid time). Same seed and
 * options, same bytes.
 */
export function* syntheticFeedPages(
  options: SyntheticFeedOptions,
): Generator<SyntheticPage, void, undefined> {
  const { entries, pageSize = DEFAULT_PAGE_SIZE, seed = DEFAULT_SEED, years = 7 } = options;
  const nowMs = (options.now ?? DEFAULT_NOW).getTime();
  if (!Number.isSafeInteger(entries) || entries < 0) {
    throw new RangeError(`entries must be a non-negative integer, got ${entries}`);
  }
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  }
  if (!(years > 0) || !Number.isFinite(nowMs)) {
    throw new RangeError("years must be positive and now a valid date");
  }
  const walk = new Walk({ entries, seed, years, nowMs, companies: options.companies ?? 3000 });
  const tombstoneRng = new Rng(deriveSeed(seed, "tombstones"));
  const usedNames = new Set<string>([HEAD_FILE]);

  const nameFor = (at: number): string => {
    const stem = `${FILE_STEM}_${fileStamp(at)}`;
    let name = `${stem}.atom`;
    for (let n = 1; usedNames.has(name); n++) {
      name = `${stem}_${n}.atom`;
    }
    usedNames.add(name);
    return name;
  };

  let header: PageHeader = { fileName: HEAD_FILE, updated: nowMs, next: null, prev: null };
  let buffer: Emitted[] = [];
  const finish = (next: string | null): SyntheticPage => {
    const newest = buffer[0]?.at ?? header.updated;
    const oldest = buffer[buffer.length - 1]?.at ?? newest;
    const tombstones: string[] = [];
    const wanted = tombstoneRng.weighted([
      [0, 45],
      [1, 45],
      [2, 10],
    ]);
    for (let i = 0; i < wanted && buffer.length > 0; i++) {
      const when = Math.round(oldest + tombstoneRng.next() * (newest - oldest));
      const ref = walk.reserveTombstone(tombstoneRng, when);
      if (ref !== null) {
        tombstones.push(renderTombstone(ref, when));
      }
    }
    return {
      fileName: header.fileName,
      xml: renderPage(
        { ...header, next },
        tombstones,
        buffer.map((e) => e.xml),
      ),
      entries: buffer.length,
      tombstones: tombstones.length,
    };
  };

  for (let entry = walk.next(); entry !== null; entry = walk.next()) {
    if (buffer.length === pageSize) {
      const next = nameFor(entry.at);
      yield finish(next);
      header = { fileName: next, updated: entry.at, next: null, prev: header.fileName };
      buffer = [];
    }
    buffer.push(entry);
  }
  yield finish(null);
}

/** `syntheticFeedPages` as an async iterable, for consumers that stream pages into the ingester. */
export async function* generateSyntheticFeed(
  options: SyntheticFeedOptions,
): AsyncGenerator<SyntheticPage, void, undefined> {
  for (const page of syntheticFeedPages(options)) {
    yield page;
  }
}

/** Writes the feed's pages into `dir` (created if needed), one file per page, holding one page at a time. */
export async function writeSyntheticFeed(dir: string, options: SyntheticFeedOptions): Promise<WriteResult> {
  await mkdir(dir, { recursive: true });
  const result: WriteResult = { pages: 0, entries: 0, tombstones: 0, bytes: 0, files: [] };
  for (const page of syntheticFeedPages(options)) {
    const path = join(dir, page.fileName);
    const bytes = Buffer.from(page.xml, "utf8");
    await writeFile(path, bytes);
    result.pages++;
    result.entries += page.entries;
    result.tombstones += page.tombstones;
    result.bytes += bytes.length;
    result.files.push(path);
  }
  return result;
}
