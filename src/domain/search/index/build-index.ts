import type { SearchKind } from "../../../db/queries/search.ts";
import type { IndexAwardRecord, IndexTenderRecord } from "../../../db/queries/search-index.ts";
import { Growable } from "./growable.ts";
import { lowerBound } from "./lower-bound.ts";
import { forEachTsvectorLexeme } from "./text.ts";

/**
 * The in-memory search index: every searchable column of every tender and award in typed arrays, inverted
 * lists of tenders per text lexeme and per CPV prefix, and each row kind's list order precomputed. It answers
 * the page and the exact total of any search in a few milliseconds by scanning arrays instead of table rows
 * (docs/search.md). Tenders and awards are addressed by their position in id order ("index"), which is not
 * their id.
 */

/** Unknown date. The smallest Int32, so that it sorts after every real date in a descending list. */
export const NULL_DAY = -2_147_483_648;

/** Rows per kind are numbered in list order; the number must fit beside a rank in one float64 sort key. */
export const ORDINAL_LIMIT = 2 ** 26;

/** A dictionary of terms (lexemes, CPV prefixes), each with the ascending list of tenders holding it. */
export interface Postings {
  termIds: Map<string, number>;
  /** Term t's tenders are `tenders[start[t]] … tenders[start[t + 1] - 1]`. */
  start: Int32Array;
  tenders: Int32Array;
  /** For lexemes: how often the term occurs in that tender (aligned with `tenders`). */
  occurrences: Uint16Array | null;
}

export interface KindRows {
  /** Indices of the rows of this kind (awards, or tenders for tender rows) in list order: date desc, unknown last, id desc. */
  order: Int32Array;
  /** The date of each row of `order`, descending, unknown (NULL_DAY) last. */
  orderDays: Int32Array;
  /** Position in `order` of each award (or tender); -1 when it is not a row of this kind. */
  ordinal: Int32Array;
}

export interface SearchIndex {
  /** The data version (search_data_version) the index was built from. */
  version: number;
  tenders: {
    id: Float64Array;
    publicationDay: Int32Array;
    /** Dense buyer number (see buyerNumbers), -1 when unknown. */
    buyer: Int32Array;
    /** Number of the NUTS code in nutsCodes, -1 when unknown. */
    nuts: Int32Array;
    /** Tender t's awards are `awards[awardStart[t]] … awards[awardStart[t + 1] - 1]`. */
    awardStart: Int32Array;
    awards: Int32Array;
  };
  awards: {
    id: Float64Array;
    tender: Int32Array;
    buyer: Int32Array;
    company: Int32Array;
    awardDay: Int32Array;
    startDay: Int32Array;
  };
  nutsCodes: string[];
  buyerNumbers: Map<number, number>;
  companyNumbers: Map<number, number>;
  lexemes: Postings;
  cpvPrefixes: Postings;
  rows: Record<SearchKind, KindRows>;
  stats: SearchIndexStats;
}

export interface SearchIndexStats {
  tenders: number;
  awards: number;
  lexemes: number;
  lexemePostings: number;
  cpvPrefixes: number;
  /** Bytes held in typed arrays (dictionaries come on top). */
  arrayBytes: number;
  /** Awards whose tender was not read (written while the index was being built; such an index is stale). */
  awardsWithoutTender: number;
}

/**
 * Groups the items 0 … keys.length - 1 by their key (0 … groups - 1), stably (a counting sort): calls
 * `place(item, position)` for every item, and returns `start`, where group g holds the positions
 * `start[g] … start[g + 1] - 1`.
 */
function groupByKey(
  keys: Int32Array,
  groups: number,
  place: (item: number, position: number) => void,
): Int32Array {
  const start = new Int32Array(groups + 1);
  for (const key of keys) {
    start[key + 1] = (start[key + 1] as number) + 1;
  }
  for (let g = 0; g < groups; g++) {
    start[g + 1] = (start[g + 1] as number) + (start[g] as number);
  }
  const next = start.slice(0, groups);
  for (let item = 0; item < keys.length; item++) {
    const key = keys[item] as number;
    place(item, next[key] as number);
    next[key] = (next[key] as number) + 1;
  }
  return start;
}

class PostingsBuilder {
  private readonly termIds = new Map<string, number>();
  private readonly terms = new Growable(Int32Array);
  private readonly tenders = new Growable(Int32Array);
  private readonly occurrences: Growable<Uint16Array> | null;

  constructor(withOccurrences: boolean) {
    this.occurrences = withOccurrences ? new Growable(Uint16Array) : null;
  }

  /** Tenders must be added in ascending order, so that every list comes out ascending. */
  add(term: string, tender: number, occurrences = 1): void {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termIds.size;
      this.termIds.set(term, id);
    }
    this.terms.push(id);
    this.tenders.push(tender);
    this.occurrences?.push(occurrences);
  }

  finish(): Postings {
    // Grouped stably, so each term's tenders keep their ascending order.
    const tenders = this.tenders.view();
    const occurrences = this.occurrences?.view() ?? null;
    const sortedTenders = new Int32Array(tenders.length);
    const sortedOccurrences = occurrences ? new Uint16Array(occurrences.length) : null;
    const start = groupByKey(this.terms.view(), this.termIds.size, (i, at) => {
      sortedTenders[at] = tenders[i] as number;
      if (sortedOccurrences && occurrences) {
        sortedOccurrences[at] = occurrences[i] as number;
      }
    });
    return { termIds: this.termIds, start, tenders: sortedTenders, occurrences: sortedOccurrences };
  }
}

/** Dense numbers for sparse ids (buyers, companies, NUTS codes), so that filters are array lookups. */
class Numbering<K> {
  readonly numbers = new Map<K, number>();
  numberOf(key: K | null): number {
    if (key === null) {
      return -1;
    }
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.numbers.size;
      this.numbers.set(key, n);
    }
    return n;
  }
}

/** Ascending distinct values of an array (unknown dates, the smallest Int32, come first). */
function distinctSorted(values: Int32Array): Int32Array {
  const sorted = Int32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) {
      sorted[n++] = sorted[i] as number;
    }
  }
  return sorted.slice(0, n);
}

/**
 * List order of the given rows: date descending, unknown dates last, then id descending (row indices follow
 * id order). Sorted as packed float64 keys (the date's rank among the distinct dates, then the index), which
 * the engine sorts natively; both parts are below 2^26, so a key stays an exact integer.
 */
async function kindRows(
  size: number,
  isRow: (i: number) => boolean,
  day: Int32Array,
  pause: () => Promise<void>,
): Promise<KindRows> {
  if (size >= ORDINAL_LIMIT) {
    throw new Error(`too many rows for the search index: ${size}`);
  }
  const days = distinctSorted(day);
  const keys = new Growable(Float64Array, Math.max(1024, size));
  for (let i = 0; i < size; i++) {
    if (isRow(i)) {
      const laterDates = days.length - 1 - lowerBound(days, day[i] as number);
      keys.push(laterDates * ORDINAL_LIMIT + (ORDINAL_LIMIT - 1 - i));
    }
  }
  await pause();
  const sorted = keys.view().sort();
  const order = new Int32Array(sorted.length);
  const orderDays = new Int32Array(sorted.length);
  const ordinal = new Int32Array(size).fill(-1);
  for (let p = 0; p < sorted.length; p++) {
    const i = ORDINAL_LIMIT - 1 - ((sorted[p] as number) % ORDINAL_LIMIT);
    order[p] = i;
    orderDays[p] = day[i] as number;
    ordinal[i] = p;
  }
  return { order, orderDays, ordinal };
}

const day = (value: number | null): number => value ?? NULL_DAY;

/** Collects tenders, then awards, each in ascending id order, and assembles the index. */
export class SearchIndexBuilder {
  private readonly tenderIds = new Growable(Float64Array);
  private readonly tenderDays = new Growable(Int32Array);
  private readonly tenderBuyers = new Growable(Int32Array);
  private readonly tenderNuts = new Growable(Int32Array);
  private readonly tenderCanonical = new Growable(Uint8Array);
  private readonly awardIds = new Growable(Float64Array);
  private readonly awardTenderIds = new Growable(Float64Array);
  private readonly awardBuyers = new Growable(Int32Array);
  private readonly awardCompanies = new Growable(Int32Array);
  private readonly awardDays = new Growable(Int32Array);
  private readonly startDays = new Growable(Int32Array);
  /** Bit 1: superseded (a linked tender's duplicate); bit 2: contract signed. */
  private readonly awardFlags = new Growable(Uint8Array);
  private readonly buyers = new Numbering<number>();
  private readonly companies = new Numbering<number>();
  private readonly nuts = new Numbering<string>();
  private readonly lexemes = new PostingsBuilder(true);
  private readonly cpv = new PostingsBuilder(false);

  addTenders(records: readonly IndexTenderRecord[]): void {
    for (const r of records) {
      const tender = this.tenderIds.length;
      this.tenderIds.push(r.id);
      this.tenderDays.push(day(r.publication_day));
      this.tenderBuyers.push(this.buyers.numberOf(r.buyer_id));
      this.tenderNuts.push(this.nuts.numberOf(r.nuts));
      this.tenderCanonical.push(r.canonical ? 1 : 0);
      forEachTsvectorLexeme(r.tsv, (lexeme, occurrences) => this.lexemes.add(lexeme, tender, occurrences));
      for (const prefix of r.cpv_prefixes) {
        this.cpv.add(prefix, tender);
      }
    }
  }

  addAwards(records: readonly IndexAwardRecord[]): void {
    for (const r of records) {
      this.awardIds.push(r.id);
      this.awardTenderIds.push(r.tender_id);
      this.awardBuyers.push(this.buyers.numberOf(r.buyer_id));
      this.awardCompanies.push(this.companies.numberOf(r.winner_company_id));
      this.awardDays.push(day(r.award_day));
      this.startDays.push(day(r.start_day));
      this.awardFlags.push((r.superseded ? 1 : 0) | (r.contract_signed ? 2 : 0));
    }
  }

  /**
   * Assembles the index. Each step takes a fraction of a second at a million awards; `pause` runs between
   * steps so that requests served by the same process are not held up for the whole assembly.
   */
  async finish(version: number, pause: () => Promise<void> = async () => {}): Promise<SearchIndex> {
    const tenderIds = this.tenderIds.toArray();
    const publicationDay = this.tenderDays.toArray();
    const canonical = this.tenderCanonical.toArray();
    const tenderCount = tenderIds.length;

    // Awards whose tender was not read were written during the build; they are left out (the index is then
    // stale anyway: its version is the one read before the build started).
    const readAwardIds = this.awardIds.toArray();
    const readTenderIds = this.awardTenderIds.toArray();
    const kept = new Growable(Int32Array, Math.max(1024, readAwardIds.length));
    const keptTender = new Growable(Int32Array, Math.max(1024, readAwardIds.length));
    for (let i = 0; i < readAwardIds.length; i++) {
      const tenderId = readTenderIds[i] as number;
      const tender = lowerBound(tenderIds, tenderId);
      if (tenderIds[tender] === tenderId) {
        kept.push(i);
        keptTender.push(tender);
      }
    }
    const keep = kept.toArray();
    const pick = <T extends Int32Array | Float64Array | Uint8Array>(all: T): T => {
      if (keep.length === all.length) {
        return all;
      }
      const out = new (all.constructor as new (n: number) => T)(keep.length);
      for (let k = 0; k < keep.length; k++) {
        out[k] = all[keep[k] as number] as number;
      }
      return out;
    };
    const awardTender = keptTender.toArray();
    const awardCount = keep.length;
    const awardFlags = pick(this.awardFlags.toArray());
    const awardDay = pick(this.awardDays.toArray());
    const startDay = pick(this.startDays.toArray());

    // Tender → awards, in award id order.
    const tenderAwards = new Int32Array(awardCount);
    const awardStart = groupByKey(awardTender, tenderCount, (a, at) => {
      tenderAwards[at] = a;
    });

    await pause();
    const award = await kindRows(awardCount, (a) => ((awardFlags[a] as number) & 1) === 0, awardDay, pause);
    await pause();
    const contract = await kindRows(awardCount, (a) => (awardFlags[a] as number) === 2, startDay, pause);
    await pause();
    const tender = await kindRows(tenderCount, (t) => canonical[t] === 1, publicationDay, pause);
    await pause();
    const lexemes = this.lexemes.finish();
    await pause();
    const cpvPrefixes = this.cpv.finish();

    const index: SearchIndex = {
      version,
      tenders: {
        id: tenderIds,
        publicationDay,
        buyer: this.tenderBuyers.toArray(),
        nuts: this.tenderNuts.toArray(),
        awardStart,
        awards: tenderAwards,
      },
      awards: {
        id: pick(readAwardIds),
        tender: awardTender,
        buyer: pick(this.awardBuyers.toArray()),
        company: pick(this.awardCompanies.toArray()),
        awardDay,
        startDay,
      },
      nutsCodes: [...this.nuts.numbers.keys()],
      buyerNumbers: this.buyers.numbers,
      companyNumbers: this.companies.numbers,
      lexemes,
      cpvPrefixes,
      rows: { award, contract, tender },
      stats: {
        tenders: tenderCount,
        awards: awardCount,
        lexemes: 0,
        lexemePostings: 0,
        cpvPrefixes: 0,
        arrayBytes: 0,
        awardsWithoutTender: readAwardIds.length - awardCount,
      },
    };
    index.stats.lexemes = index.lexemes.termIds.size;
    index.stats.lexemePostings = index.lexemes.tenders.length;
    index.stats.cpvPrefixes = index.cpvPrefixes.termIds.size;
    index.stats.arrayBytes = arrayBytes(index);
    return index;
  }
}

function arrayBytes(index: SearchIndex): number {
  const arrays: ArrayBufferView[] = [
    ...Object.values(index.tenders),
    ...Object.values(index.awards),
    index.lexemes.start,
    index.lexemes.tenders,
    ...(index.lexemes.occurrences ? [index.lexemes.occurrences] : []),
    index.cpvPrefixes.start,
    index.cpvPrefixes.tenders,
    ...Object.values(index.rows).flatMap((r) => [r.order, r.orderDays, r.ordinal]),
  ];
  return arrays.reduce((sum, array) => sum + array.byteLength, 0);
}
