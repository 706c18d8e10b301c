import { createReadStream, readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SHARED_DIR } from "./engines.ts";
import { answerWithFault, type UpstreamFault } from "./faults.ts";

export const TED_FIXTURES = `${SHARED_DIR}fixtures/ted/`;

/**
 * The fixtures that are real published notices, by canonical publication number (the converter output and
 * the SDK example are not: one repeats 153579-2020, the other has no number).
 */
export const PUBLISHED_NOTICES: ReadonlyMap<string, string> = new Map([
  ["611835-2024", "eforms-can-00611835-2024-BEL-ict-framework.xml"],
  ["607986-2024", "eforms-can-00607986-2024-BEL-no-winner.xml"],
  ["191536-2024", "eforms-can-00191536-2024-NLD-single-lot.xml"],
  ["615708-2023", "eforms-cn-00615708-2023-FIN-ict-framework.xml"],
  ["497181-2023", "eforms-cn-00497181-2023-GRC-cpv30-framework.xml"],
  ["402363-2023", "eforms-cn-00402363-2023-ESP-concession.xml"],
  ["209416-2020", "ted-r209-f02-209416-2020-GBR-cpv72.xml"],
  ["153579-2020", "ted-r209-f03-153579-2020-ESP-framework.xml"],
]);

export type SearchFailure = "429" | "timedOut" | "503" | "empty-202";

/**
 * A local TED: `POST /v3/notices/search` answers `pages` in ITERATION mode (tokens `t1`, `t2`, …; null on
 * the last page), each hit carrying `links.xml.MUL` on this server; `GET /en/notice/{number}/xml` serves the
 * fixture's XML. Tests queue failures and read what was asked.
 */
export interface TedServer {
  base: string;
  /** Search result pages as publication numbers. */
  pages: string[][];
  /** The JSON body of every search request, in order. */
  searches: Record<string, unknown>[];
  /** Notice XML requests per publication number. */
  downloads: Map<string, number>;
  /** Failures to answer by search request number (1-based): `failSearch.set(1, "429")`. */
  failSearch: Map<number, SearchFailure>;
  /** Every search answers this while set (a search that keeps failing). */
  failAllSearches: SearchFailure | null;
  /** Notices whose XML answers 404. */
  missing: Set<string>;
  /** Serve another notice's XML under a number: number → the number whose XML is served. */
  swapped: Map<string, string>;
  /** Faults to answer the next search requests with, in order (one per request). */
  searchFaults: UpstreamFault[];
  /** Faults to answer a notice's next XML requests with, in order (one per request). */
  noticeFaults: Map<string, UpstreamFault[]>;
  /** A notice's XML replaced: inline text, or `{ file }` streamed from disk (a body too big to hold). */
  noticeBodies: Map<string, string | { file: string }>;
  close(): Promise<void>;
}

export function noticeXml(publicationNumber: string): string | undefined {
  const file = PUBLISHED_NOTICES.get(publicationNumber);
  return file === undefined ? undefined : readFileSync(`${TED_FIXTURES}${file}`, "utf8");
}

export async function startTedServer(pages: string[][]): Promise<TedServer> {
  const state: Omit<TedServer, "base" | "close"> = {
    pages,
    searches: [],
    downloads: new Map(),
    failSearch: new Map(),
    failAllSearches: null,
    missing: new Set(),
    swapped: new Map(),
    searchFaults: [],
    noticeFaults: new Map(),
    noticeBodies: new Map(),
  };
  let base = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const notice = /^\/en\/notice\/([^/]+)\/xml$/.exec(path);
      if (req.method === "GET" && notice?.[1] !== undefined) {
        const number = notice[1];
        state.downloads.set(number, (state.downloads.get(number) ?? 0) + 1);
        const replaced = state.noticeBodies.get(number);
        if (typeof replaced === "object") {
          res.writeHead(200, { "content-type": "application/xml" });
          createReadStream(replaced.file).pipe(res);
          return;
        }
        const xml = state.missing.has(number)
          ? undefined
          : (replaced ?? noticeXml(state.swapped.get(number) ?? number));
        const fault = state.noticeFaults.get(number)?.shift();
        if (fault !== undefined) {
          answerWithFault(res, fault, xml ?? "", "application/xml");
          return;
        }
        if (xml === undefined) {
          res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
          return;
        }
        res.writeHead(200, { "content-type": "application/xml" }).end(xml);
        return;
      }
      if (req.method !== "POST" || path !== "/v3/notices/search") {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      state.searches.push(body);
      const failure = state.failAllSearches ?? state.failSearch.get(state.searches.length);
      if (failure !== undefined) {
        fail(res, failure);
        return;
      }
      const token = body.iterationNextToken;
      const index = typeof token === "string" ? Number(token.slice(1)) : 0;
      const numbers = state.pages[index] ?? [];
      const last = index >= state.pages.length - 1;
      const page = JSON.stringify({
        notices: numbers.map((number) => ({
          "publication-number": number,
          "publication-date": "2024-10-10+02:00",
          "notice-type": "can-standard",
          links: { xml: { MUL: `${base}/en/notice/${number}/xml` } },
        })),
        totalNoticeCount: state.pages.flat().length,
        iterationNextToken: last ? null : `t${index + 1}`,
        timedOut: false,
      });
      const searchFault = state.searchFaults.shift();
      if (searchFault !== undefined) {
        answerWithFault(res, searchFault, page, "application/json");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(page);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function fail(res: ServerResponse, failure: SearchFailure): void {
  switch (failure) {
    case "429":
      res.writeHead(429, { "retry-after": "2", "content-type": "text/plain" }).end("Too Many Requests");
      return;
    case "timedOut":
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ notices: [], totalNoticeCount: 0, timedOut: true }));
      return;
    case "503":
      res.writeHead(503, { "content-type": "text/plain" }).end("Service Unavailable");
      return;
    case "empty-202":
      res.writeHead(202, { "x-amzn-waf-action": "challenge" }).end();
      return;
  }
}
