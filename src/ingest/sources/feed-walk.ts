import type { FeedLink } from "../placsp/parse.ts";
import type { HttpOptions } from "./http.ts";
import { assertHasBody, fetchWithRetry } from "./http.ts";

/**
 * Walks a live ATOM feed from its head along `rel="next"` (newest → oldest page). The next link sits in the
 * page header, which only the caller's parser sees, so each yielded page asks the caller to report it via
 * `setNext` once the header is parsed; the walker fetches the next page only when the caller asks for it.
 * Bodies are streamed from the socket to the parser, never buffered, so memory stays flat however long
 * the walk.
 *
 * ```ts
 * for await (const page of walkFeed(head, { http })) {
 *   for await (const item of readPlacspFeed(page.body)) {
 *     if (item.kind === "feed") page.setNext(reachedCheckpoint(item) ? null : nextHref(item.links));
 *     else apply(item);
 *   }
 * }
 * ```
 */

/** One fetched page of a feed. */
export interface FeedPage {
  /** The URL requested: the head, or a next href resolved to an absolute URL. */
  url: string;
  /** The final URL after redirects: relative hrefs inside this page resolve against it. */
  responseUrl: string;
  /** 0-based position in the walk. */
  index: number;
  /** The page's bytes, streamed; guarded by the HTTP idle timeout. */
  body: AsyncIterable<Uint8Array>;
  /**
   * Reports the page's `rel="next"` href as published (relative or absolute), or null to end the walk
   * (no next link, or the caller has reached its checkpoint). Must be called before asking for the next page.
   */
  setNext(href: string | null): void;
  /**
   * Requests the page again and returns its fresh body (the previous one is cancelled), for a caller whose
   * read broke off (a transfer cut short, a truncated document). Same retries as the first request.
   */
  refetch(): Promise<AsyncIterable<Uint8Array>>;
}

export interface WalkFeedOptions {
  http: HttpOptions;
  /** Stop after this many pages (the head counts as one). */
  maxPages?: number;
  /**
   * Asked before fetching each next page, with that page's resolved URL; false ends the walk. An alternative
   * to `setNext(null)` for callers that keep the stop policy apart from parsing.
   */
  shouldContinue?: (page: { url: string; index: number; next: string }) => boolean | Promise<boolean>;
}

/** The walk cannot go on: a loop in the `next` chain, an unusable href, or a page without `setNext`. */
export class FeedWalkError extends Error {
  override readonly name = "FeedWalkError";
}

/**
 * Yields the head page, then each next page, until `setNext(null)`, `maxPages`, `shouldContinue` says
 * stop, or the caller breaks out. Throws `FeedWalkError` when a next link points at a page already visited
 * (requested or redirected-to URL, ignoring `#fragment`), is not http(s), or the caller did not call
 * `setNext`; `FetchError` (from `fetchWithRetry`) when a page cannot be fetched or has an empty body.
 * A body left unread when the caller moves on is cancelled, freeing its connection.
 */
export async function* walkFeed(
  headUrl: string,
  options: WalkFeedOptions,
): AsyncGenerator<FeedPage, void, undefined> {
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (!(maxPages >= 1)) {
    throw new RangeError("walkFeed: maxPages must be >= 1");
  }
  const seen = new Set<string>();
  let url = absoluteHttpUrl(headUrl, undefined);
  for (let index = 0; ; index++) {
    seen.add(url);
    const response = await fetchPage(url, options.http);
    const responseUrl = response.url === "" ? url : response.url;
    seen.add(withoutFragment(responseUrl));
    let stream = bodyOf(response, url);
    let next: string | null | undefined;
    const pageUrl = url;
    const page: FeedPage = {
      url,
      responseUrl,
      index,
      body: stream,
      setNext(href) {
        next = href;
      },
      async refetch() {
        await stream.cancel().catch(() => undefined);
        stream = bodyOf(await fetchPage(pageUrl, options.http), pageUrl);
        return stream;
      },
    };
    try {
      yield page;
    } finally {
      // Runs on resume and when the caller breaks out: an unread body would hold its socket open.
      if (!stream.locked) {
        await stream.cancel().catch(() => undefined);
      }
    }
    if (index + 1 >= maxPages) {
      return;
    }
    if (next === undefined) {
      throw new FeedWalkError(
        `page ${index + 1} (${url}) was not given its next link: ` +
          "call page.setNext(href | null) after parsing",
      );
    }
    if (next === null) {
      return;
    }
    const resolved = absoluteHttpUrl(next, responseUrl);
    if (options.shouldContinue && !(await options.shouldContinue({ url, index, next: resolved }))) {
      return;
    }
    if (seen.has(resolved)) {
      throw new FeedWalkError(
        `feed loop: page ${index + 1} (${url}) links rel="next" to ${resolved}, which was already visited`,
      );
    }
    url = resolved;
  }
}

async function fetchPage(url: string, http: HttpOptions): Promise<Response> {
  return assertHasBody(await fetchWithRetry(url, http));
}

function bodyOf(response: Response, url: string): ReadableStream<Uint8Array> {
  if (response.body === null) {
    // assertHasBody guarantees a body; this only satisfies the type.
    throw new FeedWalkError(`GET ${url}: response has no body`);
  }
  return response.body;
}

/** The first `rel="next"` href of a page header, as published; null on the last page. */
export function nextHref(links: readonly FeedLink[]): string | null {
  return links.find((link) => link.rel === "next")?.href ?? null;
}

function absoluteHttpUrl(href: string, base: string | undefined): string {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    throw new FeedWalkError(`unusable feed link ${JSON.stringify(href)}${base ? ` on ${base}` : ""}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FeedWalkError(`feed link is not http(s): ${url.href}`);
  }
  url.hash = "";
  return url.href;
}

function withoutFragment(href: string): string {
  const url = new URL(href);
  url.hash = "";
  return url.href;
}
