import type { SearchKind } from "../../../db/queries/search.ts";
import { type KindRows, NULL_DAY, ORDINAL_LIMIT, type Postings, type SearchIndex } from "./build-index.ts";
import { lowerBound } from "./lower-bound.ts";
import { selectSmallest } from "./select-smallest.ts";
import { textRank } from "./text.ts";

/**
 * Answers a search from the index: the ids of one page and the exact total, with the same rows, order and
 * total as the SQL of db/queries/search.ts (a test holds the two to it). Synchronous: it only reads arrays.
 */

export interface IndexQuery {
  kind: SearchKind;
  /** Distinct lexemes a row's tender must all hold (a plain conjunction); null = no text filter. */
  words: readonly string[] | null;
  cpvPrefix: string | null;
  /** NUTS prefix, upper case. */
  region: string | null;
  /** Buyers / companies whose names matched the fragment; null = no such filter. */
  buyerIds: readonly number[] | null;
  companyIds: readonly number[] | null;
  /** Inclusive bounds on the kind's date, in days since 1970-01-01. */
  fromDay: number | null;
  toDay: number | null;
  offset: number;
  limit: number;
}

export interface IndexAnswer {
  /** Award ids (tender ids for tender rows) of the page, in order. */
  ids: number[];
  total: number;
}

const EMPTY: IndexAnswer = { ids: [], total: 0 };

// A text rank is below 1 (a ts_rank with weight D); rank and list position share one float64 sort key.
const RANK_CEILING_BITS = 0x3f800000; // the single-precision bits of 1

/** A term's list of tenders as a range of the postings arrays. */
function postingRange(postings: Postings, term: string): { from: number; to: number } | null {
  const id = postings.termIds.get(term);
  if (id === undefined) {
    return null;
  }
  return { from: postings.start[id] as number, to: postings.start[id + 1] as number };
}

/** Marks the numbers of the given ids (buyers, companies) in a mask over the dense numbering. */
function partyMask(numbers: Map<number, number>, ids: readonly number[]): Uint8Array | null {
  const mask = new Uint8Array(numbers.size);
  let any = false;
  for (const id of ids) {
    const n = numbers.get(id);
    if (n !== undefined) {
      mask[n] = 1;
      any = true;
    }
  }
  return any ? mask : null;
}

/**
 * Tenders that pass the tender-level filters (CPV prefix, NUTS prefix; for tender rows, a winner among the
 * companies); null when no such filter applies. `false` when no tender can pass.
 */
function tenderMask(
  index: SearchIndex,
  query: IndexQuery,
  companies: Uint8Array | null,
): Uint8Array | null | false {
  const count = index.stats.tenders;
  let mask: Uint8Array | null = null;
  if (query.cpvPrefix !== null) {
    const range = postingRange(index.cpvPrefixes, query.cpvPrefix);
    if (range === null) {
      return false;
    }
    mask = new Uint8Array(count);
    const tenders = index.cpvPrefixes.tenders;
    for (let p = range.from; p < range.to; p++) {
      mask[tenders[p] as number] = 1;
    }
  }
  if (query.region !== null) {
    const region = query.region;
    const nutsOk = Uint8Array.from(index.nutsCodes, (code) => (code.startsWith(region) ? 1 : 0));
    const nuts = index.tenders.nuts;
    const next = mask ?? new Uint8Array(count).fill(1);
    for (let t = 0; t < count; t++) {
      const n = nuts[t] as number;
      if (next[t] === 1 && (n < 0 || nutsOk[n] === 0)) {
        next[t] = 0;
      }
    }
    mask = next;
  }
  if (query.kind === "tender" && companies !== null) {
    // A tender row matches a company when the company won any award of the tender.
    const won = new Uint8Array(count);
    const awardTender = index.awards.tender;
    const awardCompany = index.awards.company;
    for (let a = 0; a < awardTender.length; a++) {
      const c = awardCompany[a] as number;
      if (c >= 0 && companies[c] === 1) {
        won[awardTender[a] as number] = 1;
      }
    }
    if (mask !== null) {
      for (let t = 0; t < count; t++) {
        won[t] = (won[t] as number) & (mask[t] as number);
      }
    }
    mask = won;
  }
  return mask;
}

/** The filters one row must pass, compiled to array lookups. */
interface RowTest {
  rows: KindRows;
  /** For award and contract rows, the award's tender; for tender rows, null (the row is the tender). */
  tenderOf: Int32Array | null;
  buyerOf: Int32Array;
  companyOf: Int32Array | null;
  dayOf: Int32Array;
  tenders: Uint8Array | null;
  buyers: Uint8Array | null;
  companies: Uint8Array | null;
  fromDay: number;
  toDay: number;
  dated: boolean;
}

function passes(test: RowTest, row: number): boolean {
  if ((test.rows.ordinal[row] as number) < 0) {
    return false;
  }
  if (test.tenders !== null) {
    const tender = test.tenderOf === null ? row : (test.tenderOf[row] as number);
    if (test.tenders[tender] === 0) {
      return false;
    }
  }
  if (test.buyers !== null) {
    const b = test.buyerOf[row] as number;
    if (b < 0 || test.buyers[b] === 0) {
      return false;
    }
  }
  if (test.companies !== null && test.companyOf !== null) {
    const c = test.companyOf[row] as number;
    if (c < 0 || test.companies[c] === 0) {
      return false;
    }
  }
  if (test.dated) {
    // An unknown date (NULL_DAY) is below every fromDay.
    const d = test.dayOf[row] as number;
    if (d < test.fromDay || d > test.toDay) {
      return false;
    }
  }
  return true;
}

export function queryIndex(index: SearchIndex, query: IndexQuery): IndexAnswer {
  const buyers = query.buyerIds === null ? null : partyMask(index.buyerNumbers, query.buyerIds);
  const companies = query.companyIds === null ? null : partyMask(index.companyNumbers, query.companyIds);
  if ((query.buyerIds !== null && buyers === null) || (query.companyIds !== null && companies === null)) {
    return EMPTY;
  }
  const tenders = tenderMask(index, query, companies);
  if (tenders === false) {
    return EMPTY;
  }
  const isTender = query.kind === "tender";
  const test: RowTest = {
    rows: index.rows[query.kind],
    tenderOf: isTender ? null : index.awards.tender,
    buyerOf: isTender ? index.tenders.buyer : index.awards.buyer,
    companyOf: isTender ? null : index.awards.company,
    dayOf: isTender
      ? index.tenders.publicationDay
      : query.kind === "contract"
        ? index.awards.startDay
        : index.awards.awardDay,
    tenders,
    buyers,
    companies: isTender ? null : companies,
    fromDay: query.fromDay ?? NULL_DAY + 1,
    toDay: query.toDay ?? 2_147_483_647,
    dated: query.fromDay !== null || query.toDay !== null,
  };
  const ids = isTender ? index.tenders.id : index.awards.id;
  return query.words === null
    ? listByDate(test, query, ids)
    : listByRank(index, test, query, query.words, ids);
}

/** First position in a descending array whose value is <= `value`. */
function firstAtMost(days: Int32Array, value: number): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((days[mid] as number) > value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** Without text: rows in list order; a date range is a slice of it. */
function listByDate(test: RowTest, query: IndexQuery, ids: Float64Array): IndexAnswer {
  const { order, orderDays } = test.rows;
  const from = test.dated ? firstAtMost(orderDays, test.toDay) : 0;
  const to = test.dated ? firstAtMost(orderDays, test.fromDay - 1) : order.length;
  const page: number[] = [];
  const end = query.offset + query.limit;
  let total = 0;
  for (let p = from; p < to; p++) {
    const row = order[p] as number;
    if (passes(test, row)) {
      if (total >= query.offset && total < end) {
        page.push(ids[row] as number);
      }
      total += 1;
    }
  }
  return { ids: page, total };
}

/**
 * Tenders holding every word, with their text rank: the shortest list first, each further list intersected
 * by galloping search, remembering where each word was found so that its occurrences can be read.
 */
function matchWords(
  postings: Postings,
  words: readonly string[],
): { tenders: Int32Array; ranks: Float64Array } | null {
  const ranges: { from: number; to: number }[] = [];
  for (const word of words) {
    const range = postingRange(postings, word);
    if (range === null) {
      return null;
    }
    ranges.push(range);
  }
  const all = postings.tenders;
  const byLength = ranges.map((_, w) => w).sort((a, b) => length(ranges[a]) - length(ranges[b]));
  const first = byLength[0] as number;
  const firstRange = ranges[first] as { from: number; to: number };
  let tenders = all.slice(firstRange.from, firstRange.to);
  // found[w][i]: where word w's list holds candidate i (for the words intersected so far).
  const found: (Int32Array | null)[] = words.map(() => null);
  const firstFound = new Int32Array(tenders.length);
  for (let i = 0; i < firstFound.length; i++) {
    firstFound[i] = firstRange.from + i;
  }
  found[first] = firstFound;
  for (const w of byLength.slice(1)) {
    const range = ranges[w] as { from: number; to: number };
    const keptTenders = new Int32Array(tenders.length);
    const keptAt = new Int32Array(tenders.length);
    const keptIndex = new Int32Array(tenders.length);
    let kept = 0;
    let p = range.from;
    for (let i = 0; i < tenders.length && p < range.to; i++) {
      const tender = tenders[i] as number;
      // Gallop to the first posting >= tender.
      let step = 1;
      let hi = p;
      while (hi < range.to && (all[hi] as number) < tender) {
        p = hi + 1;
        hi += step;
        step *= 2;
      }
      p = lowerBound(all, tender, p, Math.min(hi, range.to));
      if (p < range.to && all[p] === tender) {
        keptTenders[kept] = tender;
        keptAt[kept] = p;
        keptIndex[kept] = i;
        kept += 1;
        p += 1;
      }
    }
    tenders = keptTenders.slice(0, kept);
    for (let u = 0; u < found.length; u++) {
      const at = found[u];
      if (at) {
        const narrowed = new Int32Array(kept);
        for (let k = 0; k < kept; k++) {
          narrowed[k] = at[keptIndex[k] as number] as number;
        }
        found[u] = narrowed;
      }
    }
    found[w] = keptAt.slice(0, kept);
  }
  const occurrences = postings.occurrences as Uint16Array;
  const counts = new Uint16Array(words.length);
  const ranks = new Float64Array(tenders.length);
  for (let i = 0; i < tenders.length; i++) {
    for (let w = 0; w < words.length; w++) {
      counts[w] = occurrences[(found[w] as Int32Array)[i] as number] as number;
    }
    ranks[i] = textRank(counts);
  }
  return { tenders, ranks };
}

const length = (range: { from: number; to: number } | undefined) => (range ? range.to - range.from : 0);

/** The bits of a single-precision number: for non-negative ones, in the same order as the numbers. */
const rankBits = (() => {
  const float = new Float32Array(1);
  const bits = new Uint32Array(float.buffer);
  return (value: number) => {
    float[0] = value;
    return bits[0] as number;
  };
})();

let scratch = new Float64Array(0);

function scratchKeys(size: number): Float64Array {
  if (scratch.length < size) {
    scratch = new Float64Array(size);
  }
  return scratch;
}

/** With text: matching rows by rank descending, then list order; only the page is fully ordered. */
function listByRank(
  index: SearchIndex,
  test: RowTest,
  query: IndexQuery,
  words: readonly string[],
  ids: Float64Array,
): IndexAnswer {
  const matched = matchWords(index.lexemes, words);
  if (matched === null) {
    return EMPTY;
  }
  const ordinal = test.rows.ordinal;
  // At most one key per row of the kind; the buffer is reused across searches (they run synchronously, one at
  // a time), so a broad search does not leave megabytes of garbage behind.
  const keys = scratchKeys(test.rows.order.length);
  let total = 0;
  // Higher rank first: ranks are below 1, so (bits of 1) - (bits of the rank) grows as the rank falls. With
  // every word present a rank lies in [0.06, 0.1], so that difference stays below 34 million, under
  // ORDINAL_LIMIT (2^26): the key is an exact float64 integer.
  const key = (rank: number, row: number) =>
    (RANK_CEILING_BITS - rankBits(rank)) * ORDINAL_LIMIT + (ordinal[row] as number);
  const { awardStart, awards } = index.tenders;
  for (let i = 0; i < matched.tenders.length; i++) {
    const tender = matched.tenders[i] as number;
    const rank = matched.ranks[i] as number;
    if (test.tenderOf === null) {
      if (passes(test, tender)) {
        keys[total++] = key(rank, tender);
      }
    } else {
      for (let k = awardStart[tender] as number; k < (awardStart[tender + 1] as number); k++) {
        const award = awards[k] as number;
        if (passes(test, award)) {
          keys[total++] = key(rank, award);
        }
      }
    }
  }
  const all = keys.subarray(0, total);
  if (query.offset >= total) {
    return { ids: [], total };
  }
  const wanted = Math.min(total, query.offset + query.limit);
  selectSmallest(all, wanted);
  const best = all.subarray(0, wanted).sort();
  const page: number[] = [];
  for (let p = query.offset; p < wanted; p++) {
    const row = test.rows.order[(best[p] as number) % ORDINAL_LIMIT] as number;
    page.push(ids[row] as number);
  }
  return { ids: page, total };
}
