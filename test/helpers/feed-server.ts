import { createReadStream } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerWithFault, type UpstreamFault } from "./faults.ts";
import { buildPage, LIFECYCLE, splitFeed, TWO_ENTRIES } from "./placsp.ts";

/**
 * A local PLACSP-like feed: three linked pages built from real fixture entries, newest first
 * (head: the 2025-12 page's two entries, its tombstone and the two newest lifecycle versions; then two older
 * pages with the remaining nine versions). The head links to page 2 with a relative href, page 2 to page 3 with
 * an absolute one, as both forms occur upstream. Per-path behaviours let tests inject failures.
 */
export interface FeedServer {
  base: string;
  headUrl: string;
  pages: Map<string, string>;
  /** Requests received per path. */
  hits: Map<string, number>;
  /** Answer HTTP 500 this many times before serving the path. */
  failTimes: Map<string, number>;
  /** Serve only the first half of these pages, then end the response. */
  truncate: Set<string>;
  /** Never answer these paths (the request hangs until the client gives up). */
  hang: Set<string>;
  /** Faults to answer a path's next requests with, in order (one per request), before serving it. */
  faults: Map<string, UpstreamFault[]>;
  /** Paths served by streaming a local file (a page too big to hold), instead of `pages`. */
  files: Map<string, string>;
  close(): Promise<void>;
}

export const HEAD_PATH = "/sindicacion_643/licitacionesPerfilesContratanteCompleto3.atom";
export const PAGE2_PATH = "/sindicacion_643/licitacionesPerfilesContratanteCompleto3_20250711_120000.atom";
export const PAGE3_PATH = "/sindicacion_643/licitacionesPerfilesContratanteCompleto3_20250601_120000.atom";

export function pageHeader(header: string, links: string): string {
  return header.replace(/\s*<link [^>]*\/>/g, "").replace(/(<id>[^<]*<\/id>)/, `$1\n    ${links}`);
}

export function feedPages(base: string): Map<string, string> {
  const lifecycle = splitFeed(LIFECYCLE);
  const recent = splitFeed(TWO_ENTRIES);
  const e = lifecycle.entries;
  const head = pageHeader(lifecycle.header, `<link rel="next" href="${PAGE2_PATH.split("/").pop()}"/>`);
  const page2 = pageHeader(lifecycle.header, `<link rel="next" href="${base}${PAGE3_PATH}"/>`);
  const page3 = pageHeader(lifecycle.header, "");
  return new Map([
    [HEAD_PATH, buildPage(head, [...recent.tombstones, ...recent.entries, ...e.slice(0, 2)])],
    [PAGE2_PATH, buildPage(page2, e.slice(2, 6))],
    [PAGE3_PATH, buildPage(page3, e.slice(6))],
  ]);
}

export async function startFeedServer(): Promise<FeedServer> {
  const hits = new Map<string, number>();
  const failTimes = new Map<string, number>();
  const truncate = new Set<string>();
  const hang = new Set<string>();
  const faults = new Map<string, UpstreamFault[]>();
  const files = new Map<string, string>();
  let pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (hang.has(path)) {
      return;
    }
    const failures = failTimes.get(path) ?? 0;
    if (failures > 0) {
      failTimes.set(path, failures - 1);
      res.writeHead(500).end("temporarily broken");
      return;
    }
    const file = files.get(path);
    if (file !== undefined) {
      res.writeHead(200, { "content-type": "application/atom+xml; charset=utf-8" });
      createReadStream(file).pipe(res);
      return;
    }
    const page = pages.get(path);
    const fault = faults.get(path)?.shift();
    if (fault !== undefined) {
      answerWithFault(res, fault, page ?? "", "application/atom+xml; charset=utf-8");
      return;
    }
    if (page === undefined) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/atom+xml; charset=utf-8" });
    if (truncate.has(path)) {
      res.end(page.slice(0, Math.floor(page.length / 2)));
      return;
    }
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pages = feedPages(base);
  return {
    base,
    headUrl: `${base}${HEAD_PATH}`,
    pages,
    hits,
    failTimes,
    truncate,
    hang,
    faults,
    files,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
