import { readFileSync } from "node:fs";
import type { IncomingMessage, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import { readPlacspFeed } from "../placsp/parse.ts";
import type { FeedPage, WalkFeedOptions } from "./feed-walk.ts";
import { FeedWalkError, nextHref, walkFeed } from "./feed-walk.ts";
import type { HttpOptions } from "./http.ts";
import { FetchError } from "./http.ts";

const FIXTURES = `${SHARED_DIR}fixtures/placsp/`;
const HEAD = readFileSync(`${FIXTURES}agregadas_sinmenores_2026-09_1entry_tombstone.atom`, "utf8");
const P2 = readFileSync(`${FIXTURES}licitaciones_completo3_2025-12_2entries_tombstone.atom`, "utf8");
const P3 = readFileSync(`${FIXTURES}licitaciones_completo3_lifecycle_17165996.atom`, "utf8");

const http: HttpOptions = {
  userAgent: "procurement-intel-test/1.0",
  timeoutMs: 2000,
  retries: 1,
  baseDelayMs: 1,
  maxDelayMs: 1,
  sleep: async () => undefined,
};

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * Replaces the page's own `rel="next"` link (if any) with `href`, or drops it when null; the new link goes
 * right after the feed's `<id>`, inside the header, where PLACSP puts its links.
 */
function withNext(page: string, href: string | null): string {
  const stripped = page.replace(/<link[^>]*rel="next"[^>]*\/>\s*/, "");
  if (href === null) {
    return stripped;
  }
  return stripped.replace("</id>", `</id>\n    <link href="${href}" rel="next"/>`);
}

/** Serves `pages` (path → body) and records every requested path. */
async function serveFeed(
  pages: (base: string) => Record<string, string>,
): Promise<{ base: string; paths: string[] }> {
  const paths: string[] = [];
  let routes: Record<string, string> = {};
  const server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? "";
    paths.push(path);
    const body = routes[path];
    if (body === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/atom+xml" });
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes = pages(base);
  return { base, paths };
}

/** Three linked pages: an absolute href from the head, a relative one from page 2, none from page 3. */
function threePages(base: string, lastNext: string | null = null): Record<string, string> {
  return {
    "/sindicacion/head.atom": withNext(HEAD, `${base}/sindicacion/head_20260922_030057.atom`),
    "/sindicacion/head_20260922_030057.atom": withNext(P2, "head_20260921_120000.atom"),
    "/sindicacion/head_20260921_120000.atom": withNext(P3, lastNext),
  };
}

interface Visit {
  url: string;
  index: number;
  entries: number;
  tombstones: number;
}

/** Walks like the ingestion pipeline: parse each page, report its next link, count what it held. */
async function walk(
  head: string,
  options: Partial<WalkFeedOptions> = {},
  decideNext: (page: FeedPage, href: string | null) => string | null = (_page, href) => href,
): Promise<Visit[]> {
  const visits: Visit[] = [];
  for await (const page of walkFeed(head, { http, ...options })) {
    const visit = { url: page.url, index: page.index, entries: 0, tombstones: 0 };
    for await (const item of readPlacspFeed(page.body)) {
      if (item.kind === "feed") {
        page.setNext(decideNext(page, nextHref(item.links)));
      } else if (item.kind === "entry") {
        visit.entries++;
      } else {
        visit.tombstones++;
      }
    }
    visits.push(visit);
  }
  return visits;
}

describe("walkFeed", () => {
  it("follows rel=next from the head, resolving absolute and relative hrefs", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b));
    const visits = await walk(`${base}/sindicacion/head.atom`);
    expect(visits).toEqual([
      { url: `${base}/sindicacion/head.atom`, index: 0, entries: 1, tombstones: 1 },
      { url: `${base}/sindicacion/head_20260922_030057.atom`, index: 1, entries: 2, tombstones: 1 },
      { url: `${base}/sindicacion/head_20260921_120000.atom`, index: 2, entries: 11, tombstones: 0 },
    ]);
    expect(paths).toEqual([
      "/sindicacion/head.atom",
      "/sindicacion/head_20260922_030057.atom",
      "/sindicacion/head_20260921_120000.atom",
    ]);
  });

  it("stops after maxPages without fetching further", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b));
    const visits = await walk(`${base}/sindicacion/head.atom`, { maxPages: 2 });
    expect(visits.map((v) => v.index)).toEqual([0, 1]);
    expect(paths).toHaveLength(2);
  });

  it("detects a loop in the next chain", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b, "head.atom"));
    const error = await walk(`${base}/sindicacion/head.atom`).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FeedWalkError);
    expect((error as Error).message).toBe(
      `feed loop: page 3 (${base}/sindicacion/head_20260921_120000.atom) links rel="next" to ` +
        `${base}/sindicacion/head.atom, which was already visited`,
    );
    expect(paths).toHaveLength(3);
  });

  it("stops when the caller reports no next page (its checkpoint)", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b));
    const visits = await walk(`${base}/sindicacion/head.atom`, {}, (page, href) =>
      page.index === 1 ? null : href,
    );
    expect(visits.map((v) => v.index)).toEqual([0, 1]);
    expect(paths).toHaveLength(2);
  });

  it("stops when shouldContinue says so, and tells it the resolved next URL", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b));
    const asked: string[] = [];
    const visits = await walk(`${base}/sindicacion/head.atom`, {
      shouldContinue: ({ next }) => {
        asked.push(next);
        return asked.length < 2;
      },
    });
    expect(visits).toHaveLength(2);
    expect(asked).toEqual([
      `${base}/sindicacion/head_20260922_030057.atom`,
      `${base}/sindicacion/head_20260921_120000.atom`,
    ]);
    expect(paths).toHaveLength(2);
  });

  it("resolves relative hrefs against the URL after redirects", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b));
    // A redirecting entry point: the relative href of page 2 must resolve under /sindicacion/, not /.
    const redirector = createServer((_req, res) => {
      res.writeHead(301, { location: `${base}/sindicacion/head_20260922_030057.atom` });
      res.end();
    });
    servers.push(redirector);
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    const start = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/p2`;
    const visits = await walk(start);
    expect(visits.map((v) => v.url)).toEqual([start, `${base}/sindicacion/head_20260921_120000.atom`]);
    expect(paths).toEqual([
      "/sindicacion/head_20260922_030057.atom",
      "/sindicacion/head_20260921_120000.atom",
    ]);
  });

  it("requires setNext before moving on, and cancels an unread body", async () => {
    const { base, paths } = await serveFeed((b) => threePages(b));
    const pages = walkFeed(`${base}/sindicacion/head.atom`, { http });
    const first = await pages.next();
    expect(first.done).toBe(false);
    await expect(pages.next()).rejects.toThrow(/was not given its next link: call page.setNext/);
    expect(paths).toHaveLength(1);
  });

  it("propagates a page that is not a feed, and a page that cannot be fetched", async () => {
    const { base } = await serveFeed((b) => ({
      "/html.atom": "<!DOCTYPE html><html><body>Service unavailable</body></html>",
      "/head.atom": withNext(HEAD, `${b}/missing.atom`),
    }));
    await expect(walk(`${base}/html.atom`)).rejects.toThrow(/not a well-formed ATOM feed|not an ATOM feed/);
    const error = await walk(`${base}/head.atom`).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as Error).message).toBe(
      `GET ${base}/missing.atom failed after 1 attempt: HTTP 404 Not Found (not retryable)`,
    );
  });

  it("refuses a next link that is not http(s)", async () => {
    const { base } = await serveFeed(() => ({ "/head.atom": withNext(HEAD, "file:///etc/passwd") }));
    await expect(walk(`${base}/head.atom`)).rejects.toThrow(
      /feed link is not http\(s\): file:\/\/\/etc\/passwd/,
    );
  });
});

describe("nextHref", () => {
  it("picks the rel=next link as published", () => {
    expect(
      nextHref([
        { rel: "self", href: "a.atom" },
        { rel: "next", href: "b.atom" },
      ]),
    ).toBe("b.atom");
    expect(nextHref([{ rel: "self", href: "a.atom" }])).toBeNull();
  });
});
