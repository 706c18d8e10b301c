import type { HttpOptions, JsonVerdict } from "../../sources/http.ts";
import {
  AttemptFailed,
  FetchError,
  postJsonWithRetry,
  readBounded,
  requestWithRetry,
} from "../../sources/http.ts";
import { decodeUtf8, looksLikeHtml, MAX_NOTICE_BYTES } from "./text.ts";

/**
 * The TED Search API v3 (`POST {api}/v3/notices/search`, research/ted.md §2): discovery of notices by an
 * expert query, walked in ITERATION mode (no 15,000-notice cap), plus the fetch of one notice's XML from the
 * `links.xml.MUL` URL each hit carries. The API flattens lot-level data, so the XML is what gets normalized.
 */

/** One notice found by the search. */
export interface TedSearchHit {
  /** As the API returns it: unpadded, e.g. `611835-2024` (the XML has `00611835-2024`). */
  publicationNumber: string;
  /** `links.xml.MUL`, e.g. `https://ted.europa.eu/en/notice/611835-2024/xml`; null when absent. */
  xmlUrl: string | null;
  /** The notice object as returned: the requested fields plus `links`. */
  raw: Record<string, unknown>;
}

/** Progress of a search, reported once per page before its hits are yielded. */
export interface TedSearchPage {
  /** 1-based. */
  page: number;
  /** Hits on this page. */
  notices: number;
  /** All matches of the query, when the API says (`totalNoticeCount`). */
  totalNoticeCount: number | null;
}

/** What `searchTedNotices` searches, and how. */
export interface TedSearchOptions {
  /** The API base, e.g. `https://api.ted.europa.eu` (the full `…/v3/notices/search` URL is accepted too). */
  apiUrl: string;
  /** An expert query, e.g. from `buildTedExpertQuery`. */
  query: string;
  /**
   * Fields to return (API aliases). `publication-number` is always requested. An unknown name makes the API
   * answer HTTP 400, so keep to documented aliases. Default `DEFAULT_TED_SEARCH_FIELDS`.
   */
  fields?: string[];
  /** Notices per page, 1–250 (the API's maximum); default 250. */
  limit?: number;
  /** Stop after this many pages. */
  maxPages?: number;
  /** The API's `scope`; default `ALL` (ted.md: `ACTIVE` would drop awarded procedures). */
  scope?: string;
  http: HttpOptions;
  /** Called after each page is fetched, before its hits are yielded (for logging). */
  onPage?: (page: TedSearchPage) => void;
}

/** The fields requested by default: enough to key and date a hit; the notice's XML carries the rest. */
export const DEFAULT_TED_SEARCH_FIELDS: readonly string[] = [
  "publication-number",
  "publication-date",
  "notice-type",
];

/** The API's page-size maximum (ted.md §2.1). */
export const TED_SEARCH_MAX_LIMIT = 250;

/**
 * Yields every notice matching `options.query`, page by page in ITERATION mode: the first request carries
 * no token, each next one the previous answer's `iterationNextToken`, until the token is missing/null, a
 * page comes back empty, or `maxPages` pages were read. One request is in flight at a time.
 *
 * Each page is a `postJsonWithRetry` call, so HTTP 429 (honouring `Retry-After`), 5xx, 408, an empty 202
 * (the WAF's bot challenge) and connection failures are retried with backoff, and so is a page answered with
 * `timedOut: true` (the backend gave up and the page is incomplete: never data). Retries are bounded by
 * `http.retries` per page; then `FetchError`. A JSON answer cut short is retried too; other invalid JSON, an
 * answer without a `notices` array, or a hit without a `publication-number` fail at once with `FetchError`
 * naming the URL.
 *
 * The iteration token is short-lived (ted.md §2.1): a consumer that does slow work per hit (fetching each
 * notice's XML at ~1 request/s) may outlive it between pages, so collect the hits first when in doubt, and
 * never persist a token; restart from a date watermark instead.
 */
export async function* searchTedNotices(
  options: TedSearchOptions,
): AsyncGenerator<TedSearchHit, void, undefined> {
  const url = searchUrl(options.apiUrl);
  const limit = options.limit ?? TED_SEARCH_MAX_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > TED_SEARCH_MAX_LIMIT) {
    throw new RangeError(`searchTedNotices: limit must be an integer from 1 to ${TED_SEARCH_MAX_LIMIT}`);
  }
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (!(maxPages >= 1)) {
    throw new RangeError("searchTedNotices: maxPages must be >= 1");
  }
  if (options.query.trim() === "") {
    throw new RangeError("searchTedNotices: query must not be empty");
  }
  const requested = options.fields ?? DEFAULT_TED_SEARCH_FIELDS;
  const fields = requested.includes("publication-number")
    ? [...requested]
    : ["publication-number", ...requested];

  let token: string | null = null;
  for (let page = 1; page <= maxPages; page++) {
    const body: Record<string, unknown> = {
      query: options.query,
      fields,
      limit,
      scope: options.scope ?? "ALL",
      paginationMode: "ITERATION",
    };
    if (token !== null) {
      body.iterationNextToken = token;
    }
    const result = await postJsonWithRetry(url, body, options.http, interpretSearchPage);
    options.onPage?.({ page, notices: result.hits.length, totalNoticeCount: result.totalNoticeCount });
    yield* result.hits;
    if (result.hits.length === 0 || result.next === null) {
      return;
    }
    if (result.next === token) {
      // A token that does not move would loop for ever on the same page.
      const reason = "iterationNextToken did not change between two pages";
      throw new FetchError({ method: "POST", url, attempts: 1, reason, status: null, retryable: false });
    }
    token = result.next;
  }
}

interface SearchPage {
  hits: TedSearchHit[];
  next: string | null;
  totalNoticeCount: number | null;
}

/** Validates one answer; `timedOut: true` is a transient failure, a wrong shape a permanent one. */
function interpretSearchPage(json: unknown): JsonVerdict<SearchPage> {
  if (!isRecord(json)) {
    return { ok: false, retryable: false, reason: "the response is not a JSON object" };
  }
  if (json.timedOut === true) {
    return { ok: false, retryable: true, reason: "the search timed out on the server (timedOut: true)" };
  }
  const notices = json.notices;
  if (!Array.isArray(notices)) {
    return { ok: false, retryable: false, reason: "the response has no notices array" };
  }
  const hits: TedSearchHit[] = [];
  for (const [index, notice] of notices.entries()) {
    if (!isRecord(notice)) {
      return { ok: false, retryable: false, reason: `notices[${index}] is not an object` };
    }
    const publicationNumber = notice["publication-number"];
    if (typeof publicationNumber !== "string" || publicationNumber.trim() === "") {
      return { ok: false, retryable: false, reason: `notices[${index}] has no publication-number` };
    }
    hits.push({ publicationNumber: publicationNumber.trim(), xmlUrl: xmlLink(notice), raw: notice });
  }
  const next = json.iterationNextToken;
  const total = json.totalNoticeCount;
  return {
    ok: true,
    value: {
      hits,
      next: typeof next === "string" && next !== "" ? next : null,
      totalNoticeCount: typeof total === "number" && Number.isFinite(total) ? total : null,
    },
  };
}

function xmlLink(notice: Record<string, unknown>): string | null {
  const links = notice.links;
  if (!isRecord(links) || !isRecord(links.xml)) {
    return null;
  }
  const mul = links.xml.MUL;
  return typeof mul === "string" && mul !== "" ? mul : null;
}

function searchUrl(apiUrl: string): string {
  let base: URL;
  try {
    base = new URL(apiUrl);
  } catch {
    throw new TypeError(`searchTedNotices: apiUrl is not a URL: ${JSON.stringify(apiUrl)}`);
  }
  if (/\/notices\/search\/?$/.test(base.pathname)) {
    return base.toString();
  }
  // Relative to the base as a directory, so a base with a path prefix (a proxy) keeps it.
  if (!base.pathname.endsWith("/")) {
    base.pathname = `${base.pathname}/`;
  }
  return new URL("v3/notices/search", base).toString();
}

/**
 * Fetches one notice's XML (a hit's `xmlUrl`, i.e. `links.xml.MUL`) and returns it as text, through
 * `requestWithRetry`: 5xx, 429 (with `Retry-After`), 408, an empty 202, connection errors, a transfer that
 * breaks off mid-body and a body that ends before its root element's end tag (cut short though the transfer
 * looked complete) are retried with backoff within `http.retries`. An answer that is not a notice fails at
 * once: one carrying `x-amzn-waf-action` (TED's WAF challenges clients it takes for bots, ted.md §4; retrying
 * will not help, the User-Agent must change), an HTML page, an empty or blank body, a body over
 * `MAX_NOTICE_BYTES`, not UTF-8 or not starting with `<`. Every failure is a `FetchError`. The root element
 * itself is checked by `readTedNotice`.
 */
export async function fetchTedNoticeXml(url: string, http: HttpOptions): Promise<string> {
  return requestWithRetry({ method: "GET", url }, http, async (response) => {
    const reject = (reason: string): AttemptFailed => new AttemptFailed(reason, { retryable: false });
    const waf = response.headers.get("x-amzn-waf-action");
    if (waf !== null) {
      throw reject(`${statusLine(response)} from the WAF (x-amzn-waf-action: ${waf}), not the notice`);
    }
    if (/\btext\/html\b/i.test(response.headers.get("content-type") ?? "")) {
      throw reject(
        `${statusLine(response)} with an HTML page (content-type text/html), not the notice's XML`,
      );
    }
    const bytes = await readBounded(response, MAX_NOTICE_BYTES).catch((err: unknown) => {
      throw err instanceof AttemptFailed ? reject(`${err.message}; a notice is at most a few MB`) : err;
    });
    const text = decodeUtf8(bytes);
    if (text === null) {
      throw reject("the body is not valid UTF-8");
    }
    const start = text.trimStart();
    if (start === "") {
      throw reject(`${statusLine(response)} with an empty body, not the notice`);
    }
    if (looksLikeHtml(start)) {
      throw reject(`${statusLine(response)} with an HTML page, not the notice's XML`);
    }
    if (!start.startsWith("<")) {
      throw reject(`the body is not XML; it starts with ${JSON.stringify(start.slice(0, 80))}`);
    }
    const root = unclosedRoot(text);
    if (root !== null) {
      throw new AttemptFailed(`the XML ends before </${root}>: a body cut short`, { retryable: true });
    }
    return text;
  });
}

/**
 * The qualified name of the document's root element when the text does not end with its end tag (a body cut
 * short, even though the transfer ended cleanly, e.g. a proxy closing a length-less response); null when it
 * does, or when the root cannot be found (the XML reader then says what is wrong).
 */
function unclosedRoot(text: string): string | null {
  // The document from its root's start tag on: the prolog (declaration, comments, PIs) is skipped.
  const body = text.replace(/^(\s*(<\?[\s\S]*?\?>|<!--[\s\S]*?-->))*\s*/, "").trimEnd();
  const root = /^<([A-Za-z_][\w.:-]*)[\s/>]/.exec(body)?.[1];
  if (root === undefined) {
    return null;
  }
  const name = root.replaceAll(".", "\\.");
  const closed = new RegExp(`</${name}\\s*>$`).test(body) || new RegExp(`^<${name}\\b[^<]*/>$`).test(body);
  return closed ? null : root;
}

function statusLine(response: Response): string {
  return `HTTP ${response.status} ${response.statusText}`.trimEnd();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Filters for `buildTedExpertQuery`; an empty list drops that criterion. */
export interface TedQueryOptions {
  /** Buyer countries, ISO 3166-1 alpha-3 (`buyer-country`, BT-514); default `["ESP"]`. */
  countries?: string[];
  /** eForms `notice-type` codes; default `TED_DEFAULT_NOTICE_TYPES` (contract and award notices). */
  noticeTypes?: string[];
  /** CPV prefixes, 1–8 digits, matched with a trailing wildcard (`72` → `classification-cpv=72*`). */
  cpvPrefixes?: string[];
  /** Earliest publication date, `YYYY-MM-DD`, inclusive. */
  since?: string;
}

/**
 * The notice types this service ingests (ted.md §2.1, SDK codelist `notice-type`): contract notices
 * (form type `competition`), award notices (`result`), modifications (`cont-modif`) and VEAT
 * (`dir-awa-pre`). Prior information, qualification-system and completion notices are left out.
 */
export const TED_DEFAULT_NOTICE_TYPES: readonly string[] = [
  "cn-standard",
  "cn-social",
  "cn-desg",
  "can-standard",
  "can-social",
  "can-desg",
  "can-tran",
  "can-modif",
  "veat",
];

/**
 * Builds a TED expert query in the syntax of ted.md §2.1's examples, criteria joined by `AND` in this order:
 * - `buyer-country=ESP`, or `buyer-country IN (ESP PRT)` for several;
 * - `notice-type=cn-standard`, or `notice-type IN (cn-standard can-standard …)`;
 * - `classification-cpv=72*`, or `(classification-cpv=72* OR classification-cpv=48*)`: one comparison per
 *   prefix, because whether `IN (…)` accepts wildcards is unverified (ted.md §8.1) while the OR form is the
 *   documented example;
 * - `publication-date>=20240101` (the API's compact date form in the §2.1 example).
 *
 * No `SORT BY`: ITERATION mode walks every match anyway, and SORT BY with ITERATION is unverified.
 * Every value is validated against its code format, so nothing a caller passes can alter the query's
 * structure. Throws `RangeError` for an invalid value or when no criterion is left.
 */
export function buildTedExpertQuery(options: TedQueryOptions = {}): string {
  const clauses: string[] = [];
  const countries = (options.countries ?? ["ESP"]).map((code) => {
    const upper = code.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(upper)) {
      throw new RangeError(`buildTedExpertQuery: not an ISO alpha-3 country code: ${JSON.stringify(code)}`);
    }
    return upper;
  });
  pushList(clauses, "buyer-country", countries);

  const types = (options.noticeTypes ?? TED_DEFAULT_NOTICE_TYPES).map((type) => {
    const lower = type.trim().toLowerCase();
    if (!/^[a-z]+(-[a-z]+)*$/.test(lower)) {
      throw new RangeError(`buildTedExpertQuery: not a notice-type code: ${JSON.stringify(type)}`);
    }
    return lower;
  });
  pushList(clauses, "notice-type", types);

  const cpvs = (options.cpvPrefixes ?? []).map((prefix) => {
    const digits = prefix.trim().replace(/\*$/, "");
    if (!/^\d{1,8}$/.test(digits)) {
      throw new RangeError(`buildTedExpertQuery: not a CPV prefix (1–8 digits): ${JSON.stringify(prefix)}`);
    }
    return `classification-cpv=${digits}*`;
  });
  const uniqueCpvs = [...new Set(cpvs)];
  if (uniqueCpvs.length === 1) {
    clauses.push(uniqueCpvs.join(""));
  } else if (uniqueCpvs.length > 1) {
    clauses.push(`(${uniqueCpvs.join(" OR ")})`);
  }

  if (options.since !== undefined) {
    clauses.push(`publication-date>=${compactDate(options.since)}`);
  }
  if (clauses.length === 0) {
    throw new RangeError("buildTedExpertQuery: no criterion left; the query would match all of TED");
  }
  return clauses.join(" AND ");
}

function pushList(clauses: string[], field: string, values: string[]): void {
  const unique = [...new Set(values)];
  if (unique.length === 1) {
    clauses.push(`${field}=${unique.join("")}`);
  } else if (unique.length > 1) {
    clauses.push(`${field} IN (${unique.join(" ")})`);
  }
}

function compactDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const parsed = match === null ? Number.NaN : Date.parse(`${date}T00:00:00Z`);
  // Date.parse rolls 2024-02-30 over to March; the round trip catches it.
  if (match === null || Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`buildTedExpertQuery: since must be a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  }
  return date.replaceAll("-", "");
}
