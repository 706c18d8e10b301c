import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../../test/helpers/engines.ts";
import type { HttpOptions, RetryInfo } from "../../sources/http.ts";
import { FetchError } from "../../sources/http.ts";
import { readTedNotice } from "../detect.ts";

import type { TedSearchHit, TedSearchOptions, TedSearchPage } from "./search-api.ts";
import { buildTedExpertQuery, fetchTedNoticeXml, searchTedNotices } from "./search-api.ts";

const FIXTURE_DIR = `${SHARED_DIR}fixtures/ted`;

/** One string as the async stream `readTedNotice` reads, the way the pipeline hands it a notice. */
async function* textStream(text: string): AsyncGenerator<string> {
  yield text;
}
const FIXTURES = readdirSync(FIXTURE_DIR)
  .filter((name) => name.endsWith(".xml"))
  .sort();
const fixtureText = (name: string): string => readFileSync(join(FIXTURE_DIR, name), "utf8");

interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> | null;
}

type Handler = (req: Recorded, res: ServerResponse, n: number) => void;

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A local server recording each request with its parsed JSON body; `handler` gets the 1-based number. */
async function serve(handler: Handler): Promise<{ base: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? null : (JSON.parse(text) as Record<string, unknown>);
      const recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      handler(recorded, res, requests.length);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, requests };
}

/** Options with a recording, instant sleep so no test waits for real backoff. */
function options(
  overrides: Partial<HttpOptions> = {},
): HttpOptions & { delays: number[]; retryLog: RetryInfo[] } {
  const delays: number[] = [];
  const retryLog: RetryInfo[] = [];
  return {
    userAgent: "procurement-intel-test/1.0 (+https://example.test)",
    timeoutMs: 2000,
    retries: 3,
    baseDelayMs: 100,
    maxDelayMs: 60_000,
    random: () => 0.5,
    sleep: async (ms) => {
      delays.push(ms);
    },
    onRetry: (info) => {
      retryLog.push(info);
    },
    ...overrides,
    delays,
    retryLog,
  };
}

function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A search hit as the API returns it: requested fields plus `links`. */
function hit(base: string, publicationNumber: string): Record<string, unknown> {
  return {
    "publication-number": publicationNumber,
    "publication-date": "2024-10-10+02:00",
    "notice-type": "can-standard",
    links: {
      xml: { MUL: `${base}/en/notice/${publicationNumber}/xml` },
      pdf: { SPA: `${base}/es/notice/${publicationNumber}/pdf` },
    },
  };
}

async function collect(search: AsyncIterable<TedSearchHit>): Promise<TedSearchHit[]> {
  const hits: TedSearchHit[] = [];
  for await (const item of search) {
    hits.push(item);
  }
  return hits;
}

const QUERY = "buyer-country=ESP AND notice-type IN (cn-standard can-standard)";

function search(
  base: string,
  http: HttpOptions,
  extra: Partial<TedSearchOptions> = {},
): AsyncIterable<TedSearchHit> {
  return searchTedNotices({ apiUrl: base, query: QUERY, http, ...extra });
}

/**
 * The fake TED API: the fixtures as notices 1-2024 … 10-2024, three per page, pages linked by tokens
 * `t1`, `t2`, `t3`; notice XML served at the hits' `links.xml.MUL`.
 */
function fakeTed(
  base: () => string,
  override?: (req: Recorded, res: ServerResponse, n: number) => boolean,
): Handler {
  return (req, res, n) => {
    if (override?.(req, res, n)) {
      return;
    }
    const xml = /^\/en\/notice\/(\d+)-2024\/xml$/.exec(req.path);
    if (req.method === "GET" && xml !== null) {
      const name = FIXTURES[Number(xml[1]) - 1];
      if (name === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/xml" });
      res.end(fixtureText(name));
      return;
    }
    if (req.method !== "POST" || req.path !== "/v3/notices/search") {
      res.writeHead(404).end();
      return;
    }
    const token = req.body?.iterationNextToken;
    const page = token === undefined ? 0 : Number(String(token).slice(1));
    const numbers = [1, 2, 3].map((i) => page * 3 + i).filter((i) => i <= FIXTURES.length);
    const last = page === 2;
    json(res, {
      notices: numbers.map((i) => hit(base(), `${i}-2024`)),
      totalNoticeCount: 9,
      iterationNextToken: last ? null : `t${page + 1}`,
      timedOut: false,
    });
  };
}

describe("searchTedNotices", () => {
  it("walks three pages by iteration token and each hit's XML link serves the notice", async () => {
    let base = "";
    const server = await serve(fakeTed(() => base));
    base = server.base;
    const pages: TedSearchPage[] = [];
    const http = options();
    const hits = await collect(
      search(base, http, {
        limit: 3,
        fields: ["notice-type", "buyer-country"],
        onPage: (p) => pages.push(p),
      }),
    );

    expect(hits.map((h) => h.publicationNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `${i}-2024`));
    expect(hits[0]?.xmlUrl).toBe(`${base}/en/notice/1-2024/xml`);
    expect(hits[0]?.raw["notice-type"]).toBe("can-standard");
    expect(pages).toEqual([
      { page: 1, notices: 3, totalNoticeCount: 9 },
      { page: 2, notices: 3, totalNoticeCount: 9 },
      { page: 3, notices: 3, totalNoticeCount: 9 },
    ]);

    // What the client sent: the same query, fields and paging on every page, then each page's token.
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/v3/notices/search"],
      ["POST", "/v3/notices/search"],
      ["POST", "/v3/notices/search"],
    ]);
    const common = {
      query: QUERY,
      fields: ["publication-number", "notice-type", "buyer-country"],
      limit: 3,
      scope: "ALL",
      paginationMode: "ITERATION",
    };
    expect(server.requests.map((r) => r.body)).toEqual([
      common,
      { ...common, iterationNextToken: "t1" },
      { ...common, iterationNextToken: "t2" },
    ]);
    const first = server.requests[0];
    expect(first?.headers["content-type"]).toBe("application/json");
    expect(first?.headers.accept).toBe("application/json");
    expect(first?.headers["user-agent"]).toBe(http.userAgent);

    // Each links.xml.MUL fetches the real fixture, byte for byte, and it reads as a TED notice.
    for (const [index, found] of hits.entries()) {
      const name = FIXTURES[index] ?? "";
      const xml = await fetchTedNoticeXml(found.xmlUrl ?? "", http);
      expect(xml).toBe(fixtureText(name));
      const root = await readTedNotice(textStream(xml));
      expect(["ContractNotice", "ContractAwardNotice", "TED_EXPORT"]).toContain(root.name);
    }
    expect(http.delays).toEqual([]);
  });

  it("uses the default fields and limit 250 and stops at an empty page even with a token", async () => {
    let base = "";
    const server = await serve((_req, res, n) =>
      json(res, { notices: n === 1 ? [hit(base, "1-2024")] : [], iterationNextToken: `t${n}` }),
    );
    base = server.base;
    const hits = await collect(search(base, options()));
    expect(hits.map((h) => h.publicationNumber)).toEqual(["1-2024"]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.body).toMatchObject({
      fields: ["publication-number", "publication-date", "notice-type"],
      limit: 250,
    });
  });

  it("stops after maxPages", async () => {
    let base = "";
    const server = await serve(fakeTed(() => base));
    base = server.base;
    const hits = await collect(search(base, options(), { limit: 3, maxPages: 2 }));
    expect(hits).toHaveLength(6);
    expect(server.requests).toHaveLength(2);
  });

  it("waits out a 429 for its Retry-After, then continues", async () => {
    let base = "";
    const server = await serve(
      fakeTed(
        () => base,
        (_req, res, n) => {
          if (n !== 2) {
            return false;
          }
          json(res, { message: "slow down" }, 429, { "retry-after": "7" });
          return true;
        },
      ),
    );
    base = server.base;
    const http = options();
    const hits = await collect(search(base, http, { limit: 3 }));
    expect(hits).toHaveLength(9);
    expect(http.delays).toEqual([7000]);
    expect(http.retryLog[0]?.reason).toBe("HTTP 429 Too Many Requests");
    // The retried request asks for the same page again.
    expect(server.requests[1]?.body?.iterationNextToken).toBe("t1");
    expect(server.requests[2]?.body?.iterationNextToken).toBe("t1");
  });

  it("retries a page answered with timedOut: true and never yields its partial hits", async () => {
    let base = "";
    const server = await serve(
      fakeTed(
        () => base,
        (_req, res, n) => {
          if (n !== 2) {
            return false;
          }
          json(res, { notices: [hit(base, "999-2024")], iterationNextToken: "bogus", timedOut: true });
          return true;
        },
      ),
    );
    base = server.base;
    const http = options();
    const hits = await collect(search(base, http, { limit: 3 }));
    expect(hits.map((h) => h.publicationNumber)).not.toContain("999-2024");
    expect(hits).toHaveLength(9);
    expect(http.delays).toEqual([75]); // backoffDelay(1), ceiling 100, random 0.5: 50 + 0.5·50
    expect(http.retryLog[0]?.reason).toMatch(/timedOut: true/);
    expect(server.requests.map((r) => r.body?.iterationNextToken)).toEqual([undefined, "t1", "t1", "t2"]);
  });

  it("fails with a clear error when every attempt times out", async () => {
    const server = await serve((_req, res) => json(res, { notices: [], timedOut: true }));
    const http = options({ retries: 2 });
    const error = await collect(search(server.base, http)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ attempts: 3, retryable: true, method: "POST" });
    expect(String(error)).toContain(`POST ${server.base}/v3/notices/search failed after 3 attempts`);
    expect(String(error)).toMatch(/timed out on the server \(timedOut: true\)/);
    expect(server.requests).toHaveLength(3);
  });

  it("treats a 202 with an empty body as a bot challenge, not as an empty result", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(202, { "x-amzn-waf-action": "challenge" });
      res.end();
    });
    const http = options({ retries: 1 });
    const error = await collect(search(server.base, http)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect(String(error)).toMatch(/HTTP 202 Accepted with an empty body \(a bot challenge, not data\)/);
    expect(server.requests).toHaveLength(2);
  });

  it("rejects invalid JSON at once, naming the URL", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Maintenance</body></html>");
    });
    const error = await collect(search(server.base, options())).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ attempts: 1, retryable: false, status: 200 });
    expect(String(error)).toContain(`${server.base}/v3/notices/search`);
    expect(String(error)).toMatch(/invalid JSON .*<html><body>Maintenance/);
    expect(server.requests).toHaveLength(1);
  });

  it("rejects an answer without notices, or a hit without a publication number", async () => {
    const noNotices = await serve((_req, res) => json(res, { results: [] }));
    await expect(collect(search(noNotices.base, options()))).rejects.toThrow(
      /search failed after 1 attempt: the response has no notices array \(not retryable\)/,
    );
    const noNumber = await serve((_req, res) => json(res, { notices: [{ links: {} }] }));
    await expect(collect(search(noNumber.base, options()))).rejects.toThrow(
      /notices\[0\] has no publication-number/,
    );
  });

  it("fails at once on a 400 (a bad query or field), and retries a dropped connection", async () => {
    const bad = await serve((_req, res) => json(res, { message: "unknown field" }, 400));
    const http = options();
    await expect(collect(search(bad.base, http))).rejects.toThrow(/HTTP 400 Bad Request \(not retryable\)/);
    expect(bad.requests).toHaveLength(1);

    let base = "";
    const flaky = await serve(
      fakeTed(
        () => base,
        (_req, res, n) => {
          if (n !== 1) {
            return false;
          }
          res.socket?.destroy();
          return true;
        },
      ),
    );
    base = flaky.base;
    const retried = options();
    expect(await collect(search(base, retried, { limit: 3 }))).toHaveLength(9);
    expect(retried.retryLog).toHaveLength(1);
  });

  it("retries a request without headers in time and a body that stalls", async () => {
    let base = "";
    const server = await serve(
      fakeTed(
        () => base,
        (_req, res, n) => {
          if (n === 1) {
            return true; // never answers: the header deadline fires
          }
          if (n === 2) {
            res.writeHead(200, { "content-type": "application/json" });
            res.write('{"notices": ['); // then nothing: the body idle deadline fires
            return true;
          }
          return false;
        },
      ),
    );
    base = server.base;
    const http = options({ timeoutMs: 400 });
    expect(await collect(search(base, http, { limit: 3 }))).toHaveLength(9);
    expect(http.retryLog.map((r) => r.reason)).toEqual([
      "no response headers within 400 ms",
      expect.stringMatching(/no body data for 400 ms/),
    ]);
  });

  it("gives up when the token does not advance", async () => {
    let base = "";
    const server = await serve((_req, res) =>
      json(res, { notices: [hit(base, "1-2024")], iterationNextToken: "same" }),
    );
    base = server.base;
    await expect(collect(search(base, options()))).rejects.toThrow(/iterationNextToken did not change/);
    expect(server.requests).toHaveLength(2);
  });

  it("accepts a base with a path prefix or the full search URL, and checks its limits", async () => {
    let base = "";
    const server = await serve((req, res) => json(res, { notices: [hit(base, req.path)] }));
    base = server.base;
    const [prefixed] = await collect(search(`${base}/proxy/ted`, options()));
    expect(prefixed?.publicationNumber).toBe("/proxy/ted/v3/notices/search");
    const [full] = await collect(search(`${base}/v3/notices/search`, options()));
    expect(full?.publicationNumber).toBe("/v3/notices/search");

    await expect(collect(search(base, options(), { limit: 251 }))).rejects.toThrow(RangeError);
    await expect(collect(search(base, options(), { limit: 0 }))).rejects.toThrow(RangeError);
    await expect(collect(search(base, options(), { query: " " }))).rejects.toThrow(RangeError);
  });

  it("stops at the caller's abort without retrying", async () => {
    const controller = new AbortController();
    const server = await serve((_req, res) => {
      controller.abort(new Error("shutting down"));
      json(res, { message: "busy" }, 503);
    });
    const error = await collect(search(server.base, options({ signal: controller.signal }))).catch(
      (err: unknown) => err,
    );
    expect(String(error)).toMatch(/shutting down/);
    expect(server.requests).toHaveLength(1);
  });
});

describe("fetchTedNoticeXml", () => {
  const NOTICE = FIXTURES[0] ?? "";

  it("retries a 503 and a broken transfer, then returns the XML text", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) {
        res.writeHead(503).end();
      } else if (n === 2) {
        // Headers and half a body, then the connection drops.
        const text = fixtureText(NOTICE);
        res.writeHead(200, {
          "content-type": "application/xml",
          "content-length": String(Buffer.byteLength(text)),
        });
        res.write(text.slice(0, 1000), () => res.socket?.destroy());
      } else {
        res.writeHead(200, { "content-type": "application/xml" });
        res.end(fixtureText(NOTICE));
      }
    });
    const http = options();
    expect(await fetchTedNoticeXml(`${server.base}/en/notice/1-2024/xml`, http)).toBe(fixtureText(NOTICE));
    expect(server.requests).toHaveLength(3);
    expect(http.retryLog.map((r) => r.reason)).toEqual([
      "HTTP 503 Service Unavailable",
      expect.stringMatching(/^transfer interrupted: /),
    ]);
  });

  it("rejects a WAF challenge, HTML, blank and non-XML bodies", async () => {
    const server = await serve((req, res) => {
      switch (req.path) {
        case "/waf":
          res.writeHead(202, { "x-amzn-waf-action": "challenge", "content-type": "text/plain" });
          res.end("challenge");
          return;
        case "/html-type":
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end("<p>hello</p>");
          return;
        case "/html-body":
          res.writeHead(200, { "content-type": "application/xml" });
          res.end("\n<!DOCTYPE html><html><body>Not found</body></html>");
          return;
        case "/blank":
          res.writeHead(200, { "content-type": "application/xml" });
          res.end("  \n ");
          return;
        case "/json":
          res.writeHead(200, { "content-type": "application/json" });
          res.end('{"error":"nope"}');
          return;
        case "/latin1":
          res.writeHead(200, { "content-type": "application/xml" });
          res.end(Buffer.from([0x3c, 0x61, 0x3e, 0xe9, 0x3c, 0x2f, 0x61, 0x3e]));
          return;
        default:
          res.writeHead(200, { "content-type": "application/xml" });
          res.end();
      }
    });
    const http = options({ retries: 1 });
    const fetchAt = (path: string): Promise<unknown> =>
      fetchTedNoticeXml(`${server.base}${path}`, http).catch((err: unknown) => err);

    expect(String(await fetchAt("/waf"))).toMatch(
      /GET .*\/waf failed after 1 attempt: .*x-amzn-waf-action: challenge/,
    );
    expect(String(await fetchAt("/html-type"))).toMatch(/HTML page \(content-type text\/html\)/);
    expect(String(await fetchAt("/html-body"))).toMatch(/HTML page, not the notice's XML/);
    expect(String(await fetchAt("/blank"))).toMatch(/empty body, not the notice/);
    expect(String(await fetchAt("/json"))).toMatch(/not XML; it starts with "\{\\"error/);
    expect(String(await fetchAt("/latin1"))).toMatch(/not valid UTF-8/);
    for (const path of ["/waf", "/html-type", "/html-body", "/blank", "/json", "/latin1"]) {
      expect(await fetchAt(path)).toBeInstanceOf(FetchError);
    }
    // An empty 200 is refused too (assertHasBody-style), not returned as "".
    expect(String(await fetchAt("/empty"))).toMatch(/empty body/);
  });

  it("reads again a notice whose XML ends before its root's end tag, though the transfer looked complete", async () => {
    const text = fixtureText(NOTICE);
    const server = await serve((_req, res, n) => {
      res.writeHead(200, { "content-type": "application/xml" });
      // A length-less (chunked) answer cut in half: nothing at the transport level says it is short.
      res.end(n === 1 ? text.slice(0, text.length / 2) : text);
    });
    const http = options();
    expect(await fetchTedNoticeXml(`${server.base}/en/notice/1-2024/xml`, http)).toBe(text);
    expect(http.retryLog.map((r) => r.reason)).toEqual([
      expect.stringMatching(/ends before <\/\S+>: a body cut short/),
    ]);
    // Cut on every attempt: a FetchError once the budget is spent, marked retryable.
    const always = await serve((_req, res) => res.end(text.slice(0, 500)));
    const error = await fetchTedNoticeXml(`${always.base}/x`, options({ retries: 1 })).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ attempts: 2, retryable: true });
  });

  it("reports a missing notice as the HTTP failure it is", async () => {
    const server = await serve((_req, res) => res.writeHead(404).end());
    const error = await fetchTedNoticeXml(`${server.base}/en/notice/1-2024/xml`, options()).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(FetchError);
    expect(String(error)).toMatch(/HTTP 404 Not Found \(not retryable\)/);
  });
});

describe("buildTedExpertQuery", () => {
  it("defaults to Spanish buyers and contract and award notice types", () => {
    expect(buildTedExpertQuery({})).toBe(
      "buyer-country=ESP AND notice-type IN " +
        "(cn-standard cn-social cn-desg can-standard can-social can-desg can-tran can-modif veat)",
    );
  });

  it("combines countries, notice types, CPV prefixes and a start date", () => {
    expect(
      buildTedExpertQuery({
        countries: ["esp", "PRT"],
        noticeTypes: ["can-standard", "can-modif"],
        cpvPrefixes: ["72", "48", "302*"],
        since: "2024-01-01",
      }),
    ).toBe(
      "buyer-country IN (ESP PRT) AND notice-type IN (can-standard can-modif) AND " +
        "(classification-cpv=72* OR classification-cpv=48* OR classification-cpv=302*) AND " +
        "publication-date>=20240101",
    );
    expect(buildTedExpertQuery({ noticeTypes: ["cn-standard"], cpvPrefixes: ["72000000"] })).toBe(
      "buyer-country=ESP AND notice-type=cn-standard AND classification-cpv=72000000*",
    );
    expect(buildTedExpertQuery({ countries: [], noticeTypes: [], since: "2026-02-28" })).toBe(
      "publication-date>=20260228",
    );
    expect(
      buildTedExpertQuery({ countries: ["ESP", "ESP"], noticeTypes: [], cpvPrefixes: ["72", "72*"] }),
    ).toBe("buyer-country=ESP AND classification-cpv=72*");
  });

  it("refuses values that would change the query's structure, and an empty query", () => {
    expect(() => buildTedExpertQuery({ countries: ["ESP OR buyer-country=FRA"] })).toThrow(RangeError);
    expect(() => buildTedExpertQuery({ noticeTypes: ["cn-standard)"] })).toThrow(RangeError);
    expect(() => buildTedExpertQuery({ cpvPrefixes: ["72*) OR (x"] })).toThrow(RangeError);
    expect(() => buildTedExpertQuery({ cpvPrefixes: ["123456789"] })).toThrow(RangeError);
    expect(() => buildTedExpertQuery({ since: "2024-02-30" })).toThrow(RangeError);
    expect(() => buildTedExpertQuery({ since: "20240101" })).toThrow(RangeError);
    expect(() => buildTedExpertQuery({ countries: [], noticeTypes: [] })).toThrow(/no criterion/);
  });
});
