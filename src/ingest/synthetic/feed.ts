import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ENTRY_ID_PREFIX, renderEntry, SYNTHETIC_BASE } from "./codice.ts";
import type { Folder, PlannedFolder } from "./folder.ts";
import { MAX_LIFECYCLE_DAYS, planFolder } from "./folder.ts";
import type { PartyPools } from "./parties.ts";
import { buildParties } from "./parties.ts";
import { deriveSeed, Rng } from "./random.ts";
import type { Occurrence, RenewalPlan } from "./renewals.ts";
import { planRenewals } from "./renewals.ts";
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
 *
 * Tenders of recurring needs (renewals.ts) are the exception to the Poisson arrivals: their publication
 * days are scheduled up front (a record per tender, not its XML), and each is planned once the walk comes
 * within a lifecycle of its publication, then created when the walk reaches its newest version. The Poisson
 * process is thinned by as many folders as the schedule puts in the window, so the corpus still spans `years`.
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

/** Pending versions by `updated` (ties: higher entry number, then later version, first). */
function pendingBefore(a: Pending, b: Pending): boolean {
  if (a.at !== b.at) {
    return a.at > b.at;
  }
  return a.folder.number !== b.folder.number ? a.folder.number > b.folder.number : a.version > b.version;
}

/** A planned tender of a recurring need, waiting for the walk to reach its newest version. */
interface Scheduled {
  at: number;
  planned: PlannedFolder;
  occurrence: Occurrence;
}

/** Scheduled tenders by the `updated` of their newest version (ties: need, then tender in the chain). */
function scheduledBefore(a: Scheduled, b: Scheduled): boolean {
  if (a.at !== b.at) {
    return a.at > b.at;
  }
  return a.occurrence.need.id !== b.occurrence.need.id
    ? a.occurrence.need.id > b.occurrence.need.id
    : a.occurrence.k > b.occurrence.k;
}

/** Binary max-heap under `before`. */
class MaxHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (p === undefined || !this.#before(item, p)) {
        break;
      }
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
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
      if (l !== undefined && this.#before(l, bestItem)) {
        best = left;
        bestItem = l;
      }
      const r = items[right];
      if (r !== undefined && this.#before(r, bestItem)) {
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
  readonly #heap = new MaxHeap<Pending>(pendingBefore);
  readonly #renewals: RenewalPlan;
  /** Next tender of `#renewals.occurrences` (newest first) not planned yet. */
  #nextRenewal = 0;
  readonly #scheduled = new MaxHeap<Scheduled>(scheduledBefore);
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
    const folders = foldersFor(options.entries);
    this.#renewals = planRenewals(options.seed, this.#parties, {
      nowMs: options.nowMs,
      years: options.years,
      folders,
    });
    // The schedule takes its share of the folders; the one-off arrivals fill the rest of the window.
    const oneOff = Math.max(folders - this.#renewals.inWindow, folders / 2);
    this.#meanGap = (options.years * 365.25 * DAY_MS) / oneOff;
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
    this.#planScheduled();
    const top = this.#heap.peek();
    const scheduled = this.#scheduled.peek();
    if (scheduled && scheduled.at > this.#nextFolderAt && (!top || scheduled.at >= top.at)) {
      this.#scheduled.pop();
      return this.#createScheduled(scheduled);
    }
    if (top && top.at > this.#nextFolderAt) {
      this.#heap.pop();
      return this.#emit(top.folder, top.version);
    }
    return this.#createFolder();
  }

  /**
   * Plans every scheduled tender whose versions could be as new as the next entry: all of a tender's
   * versions fall within MAX_LIFECYCLE_DAYS of its publication, so one not planned yet can only come later
   * in the feed (older) than anything emitted so far.
   */
  #planScheduled(): void {
    const frontier = Math.max(
      this.#nextFolderAt,
      this.#heap.peek()?.at ?? Number.NEGATIVE_INFINITY,
      this.#scheduled.peek()?.at ?? Number.NEGATIVE_INFINITY,
    );
    const { occurrences } = this.#renewals;
    for (;;) {
      const occurrence = occurrences[this.#nextRenewal];
      // Two days' margin over the lifecycle covers the time of day and the Madrid offset.
      if (!occurrence || (occurrence.publishedDay + MAX_LIFECYCLE_DAYS + 2) * DAY_MS < frontier) {
        return;
      }
      this.#nextRenewal++;
      const planned = planFolder(
        { seed: this.#seed, parties: this.#parties, nowMs: this.#nowMs },
        {
          index: -1,
          number: 0,
          sourceRef: "",
          latestMs: null,
          multiVersion: false,
          doomed: false,
          renewal: occurrence,
        },
      );
      if (planned !== null) {
        const newest = planned.emitted[planned.emitted.length - 1] ?? 0;
        const at = planned.folder.versions[newest]?.at ?? 0;
        this.#scheduled.push({ at, planned, occurrence });
      }
    }
  }

  /** Creates a scheduled tender now that the walk has reached its newest version. */
  #createScheduled(scheduled: Scheduled): Emitted {
    const index = this.#created++;
    const identity = { number: FIRST_NUMBER - index, sourceRef: Walk.sourceRef(index) };
    // The feed shows earlier versions for the same share of folders as for one-off ones. Drawn from a stream
    // of the tender's own, so the Poisson arrivals (the walk's stream) do not depend on the schedule.
    const { need, k } = scheduled.occurrence;
    const multiVersion = new Rng(deriveSeed(this.#seed, "renewal-feed", need.id, k)).chance(
      MULTI_VERSION_SHARE,
    );
    let folder: Folder;
    let emitted: readonly number[];
    if (this.#doomed.has(index)) {
      // A tombstone already names this entry: re-plan it cancelled, its newest version where the walk is.
      const replanned = planFolder(
        { seed: this.#seed, parties: this.#parties, nowMs: this.#nowMs },
        {
          index,
          ...identity,
          latestMs: scheduled.at,
          multiVersion,
          doomed: true,
          renewal: scheduled.occurrence,
        },
      );
      if (replanned === null) {
        throw new Error("a cancelled folder is always planned");
      }
      this.#doomed.delete(index);
      folder = replanned.folder;
      emitted = replanned.emitted;
    } else {
      // Set in place rather than spread into a copy: a copy gets another hidden class, and renderEntry's
      // property accesses would turn polymorphic for every folder.
      folder = scheduled.planned.folder;
      folder.number = identity.number;
      folder.sourceRef = identity.sourceRef;
      const newest = scheduled.planned.emitted[scheduled.planned.emitted.length - 1] ?? 0;
      emitted = multiVersion ? folder.versions.map((_, i) => i).slice(0, newest + 1) : [newest];
    }
    return this.#push(folder, emitted, scheduled.at);
  }

  #createFolder(): Emitted {
    const index = this.#created++;
    const latestMs = Math.floor(this.#nextFolderAt);
    this.#nextFolderAt -= this.#process.exponential(this.#meanGap);
    const planned = planFolder(
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
    if (planned === null) {
      throw new Error("a one-off folder is always planned");
    }
    this.#doomed.delete(index);
    return this.#push(planned.folder, planned.emitted, latestMs);
  }

  /** Queues the folder's earlier versions and emits its newest. */
  #push(folder: Folder, emitted: readonly number[], latestMs: number): Emitted {
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

/** Folders a corpus of `entries` holds on average. */
function foldersFor(entries: number): number {
  return Math.max(1, entries / ENTRIES_PER_FOLDER);
}

/**
 * The recurring needs behind a feed generated with these options (the same schedule the feed uses), so that
 * tests and analyses can tell renewals from one-off purchases without reading anything back from the XML.
 */
export function syntheticRenewalPlan(options: SyntheticFeedOptions): RenewalPlan {
  const { seed = DEFAULT_SEED, years = 7, companies = 3000 } = options;
  return planRenewals(seed, buildParties(seed, { companies }), {
    nowMs: (options.now ?? DEFAULT_NOW).getTime(),
    years,
    folders: foldersFor(options.entries),
  });
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
