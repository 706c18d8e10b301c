import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { HttpOptions, RetryInfo } from "./http.ts";
import {
  AttemptFailed,
  assertHasBody,
  BodyTimeoutError,
  backoffDelay,
  EmptyBodyError,
  FetchError,
  fetchWithRetry,
  parseRetryAfter,
  postJsonWithRetry,
  requestWithRetry,
} from "./http.ts";

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A local server; `handler` gets the 1-based request number. */
async function serve(handler: Handler): Promise<{ url: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res, requests.length);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/feed.atom`, requests };
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
    maxDelayMs: 1000,
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

function status(code: number, body = ""): Handler {
  return (_req, res) => {
    res.writeHead(code, { "content-type": "text/plain" });
    res.end(body);
  };
}

describe("fetchWithRetry", () => {
  it("retries a 500 and returns the following 200", async () => {
    const server = await serve((req, res, n) =>
      n === 1 ? status(500)(req, res, n) : status(200, "ok")(req, res, n),
    );
    const opts = options();
    const response = await fetchWithRetry(server.url, opts);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(opts.retryLog).toEqual([{ attempt: 1, delayMs: 75, reason: "HTTP 500 Internal Server Error" }]);
  });

  it("gives up after retries + 1 attempts with a FetchError naming URL, count and reason", async () => {
    const server = await serve(status(503));
    const opts = options({ retries: 3 });
    const error = await fetchWithRetry(server.url, opts).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toBe(
      `GET ${server.url} failed after 4 attempts: HTTP 503 Service Unavailable`,
    );
    expect(error).toMatchObject({ attempts: 4, status: 503, retryable: true, url: server.url });
    expect(server.requests).toHaveLength(4);
    expect(opts.delays).toHaveLength(3);
  });

  it("fails at once on a 404", async () => {
    const server = await serve(status(404, "no such page"));
    const opts = options();
    const error = await fetchWithRetry(server.url, opts).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toBe(
      `GET ${server.url} failed after 1 attempt: HTTP 404 Not Found (not retryable)`,
    );
    expect(error).toMatchObject({ attempts: 1, status: 404, retryable: false });
    expect(server.requests).toHaveLength(1);
    expect(opts.delays).toEqual([]);
  });

  it("retries 408 and honours Retry-After seconds on a 429, capped at maxDelayMs", async () => {
    const server = await serve((req, res, n) => {
      if (n === 1) {
        res.writeHead(429, { "retry-after": "1" });
        res.end();
      } else if (n === 2) {
        res.writeHead(429, { "retry-after": "120" });
        res.end();
      } else if (n === 3) {
        status(408)(req, res, n);
      } else {
        status(200, "ok")(req, res, n);
      }
    });
    const opts = options({ maxDelayMs: 5000 });
    const response = await fetchWithRetry(server.url, opts);
    expect(await response.text()).toBe("ok");
    // 1 s as asked; 120 s capped at 5 s; then the 408 falls back to backoff
    // (retry 3: ceiling 400, jitter 0.5).
    expect(opts.delays).toEqual([1000, 5000, 300]);
    expect(opts.retryLog.map((r) => r.reason)).toEqual([
      "HTTP 429 Too Many Requests",
      "HTTP 429 Too Many Requests",
      "HTTP 408 Request Timeout",
    ]);
  });

  it("honours a Retry-After HTTP-date", async () => {
    const when = new Date(Date.now() + 600_000).toUTCString();
    const server = await serve((req, res, n) => {
      if (n === 1) {
        res.writeHead(503, { "retry-after": when });
        res.end();
      } else {
        status(200, "ok")(req, res, n);
      }
    });
    const opts = options({ maxDelayMs: 2000 });
    await fetchWithRetry(server.url, opts);
    expect(opts.delays).toEqual([2000]);
  });

  it("retries a refused connection, then throws a FetchError", async () => {
    const server = await serve(status(200));
    const url = server.url;
    const closing = servers.splice(0);
    for (const s of closing) {
      await new Promise((resolve) => s.close(resolve));
    }
    const opts = options({ retries: 2 });
    const error = await fetchWithRetry(url, opts).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ attempts: 3, status: null, retryable: true });
    expect((error as FetchError).message).toMatch(/failed after 3 attempts: .*ECONNREFUSED/);
    expect(opts.delays).toHaveLength(2);
  });

  it("retries a connection closed without an answer", async () => {
    const server = await serve((req, res, n) => {
      if (n === 1) {
        req.socket.destroy();
      } else {
        status(200, "ok")(req, res, n);
      }
    });
    const opts = options();
    const response = await fetchWithRetry(server.url, opts);
    expect(await response.text()).toBe("ok");
    expect(opts.retryLog).toHaveLength(1);
    expect(opts.retryLog[0]?.reason).toMatch(/other side closed|socket hang up|ECONNRESET/);
  });

  it("times out a server that never answers, and retries", async () => {
    const server = await serve(() => {
      // Never answers.
    });
    const opts = options({ timeoutMs: 150, retries: 1 });
    const error = await fetchWithRetry(server.url, opts).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toBe(
      `GET ${server.url} failed after 2 attempts: no response headers within 150 ms`,
    );
    expect(server.requests).toHaveLength(2);
  });

  it("treats a 202 with an empty body as a failure, not data", async () => {
    const server = await serve(status(202));
    const opts = options({ retries: 1 });
    const error = await fetchWithRetry(server.url, opts).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toBe(
      `GET ${server.url} failed after 2 attempts: ` +
        "HTTP 202 Accepted with an empty body (a bot challenge, not data)",
    );
  });

  it("accepts a 202 that carries a body, keeping every byte", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(202);
      res.write("<feed");
      res.end("/>");
    });
    const response = await fetchWithRetry(server.url, options());
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("<feed/>");
  });

  it("sends the User-Agent", async () => {
    const server = await serve(status(200, "ok"));
    await fetchWithRetry(server.url, options({ userAgent: "procurement-intel/0.1 (ops@example.test)" }));
    expect(server.requests[0]?.headers["user-agent"]).toBe("procurement-intel/0.1 (ops@example.test)");
  });

  it("keeps the final URL after a redirect", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) {
        res.writeHead(302, { location: "/moved/feed.atom" });
        res.end();
      } else {
        res.end("ok");
      }
    });
    const response = await fetchWithRetry(server.url, options());
    expect(response.url).toBe(server.url.replace("/feed.atom", "/moved/feed.atom"));
  });

  it("backs off exponentially with equal jitter, never above maxDelayMs", async () => {
    const server = await serve(status(503));
    const low = options({ retries: 6, random: () => 0 });
    await fetchWithRetry(server.url, low).catch(() => undefined);
    expect(low.delays).toEqual([50, 100, 200, 400, 500, 500]);

    const high = options({ retries: 6, random: () => 0.999999 });
    await fetchWithRetry(server.url, high).catch(() => undefined);
    expect(high.delays).toEqual([100, 200, 400, 800, 1000, 1000]);

    const real = options({ retries: 6, random: Math.random });
    await fetchWithRetry(server.url, real).catch(() => undefined);
    const ceilings = [100, 200, 400, 800, 1000, 1000];
    real.delays.forEach((ms, i) => {
      const ceiling = ceilings[i] ?? 0;
      expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ms).toBeLessThanOrEqual(ceiling);
    });
  });

  it("stops on the caller's abort signal without retrying", async () => {
    const server = await serve(() => {
      // Never answers; the caller aborts.
    });
    const controller = new AbortController();
    const opts = options({ signal: controller.signal });
    const pending = fetchWithRetry(server.url, opts).catch((err: unknown) => err);
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    const error = await pending;
    expect(error).toEqual(new Error("shutting down"));
    expect(opts.delays).toEqual([]);
  });

  it("rejects unusable options and URLs", async () => {
    await expect(fetchWithRetry("ftp://example.test/x", options())).rejects.toThrow(TypeError);
    await expect(fetchWithRetry("not a url", options())).rejects.toThrow(/not a URL/);
    await expect(fetchWithRetry("http://127.0.0.1:9/", options({ userAgent: " " }))).rejects.toThrow(
      /userAgent/,
    );
  });
});

describe("body idle timeout", () => {
  it("errors the body when the server stalls mid-transfer", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("<feed>");
      // …and never the rest.
    });
    const response = await fetchWithRetry(server.url, options({ bodyIdleTimeoutMs: 150 }));
    const error = await response.text().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BodyTimeoutError);
    expect((error as Error).message).toBe(`GET ${server.url}: no body data for 150 ms (stalled transfer)`);
  });

  it("does not count the consumer's own pauses", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write("a".repeat(10));
      setTimeout(() => res.end("b".repeat(10)), 50);
    });
    const response = await fetchWithRetry(server.url, options({ bodyIdleTimeoutMs: 100 }));
    const chunks: string[] = [];
    const body = response.body;
    expect(body).not.toBeNull();
    for await (const chunk of body ?? []) {
      chunks.push(Buffer.from(chunk).toString());
      // A slow consumer: three idle periods between reads.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(chunks.join("")).toBe(`${"a".repeat(10)}${"b".repeat(10)}`);
  });
});

describe("assertHasBody", () => {
  it("rejects an empty body and passes a non-empty one through intact", async () => {
    const empty = new Response(new ReadableStream({ start: (c) => c.close() }), { status: 202 });
    await expect(assertHasBody(empty)).rejects.toBeInstanceOf(EmptyBodyError);
    await expect(assertHasBody(new Response(null, { status: 200 }))).rejects.toThrow(/empty body/);
    const full = await assertHasBody(new Response("<feed/>", { status: 200 }));
    expect(await full.text()).toBe("<feed/>");
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP-dates", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("1", now)).toBe(1000);
    expect(parseRetryAfter(" 30 ", now)).toBe(30_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("1.5", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe("backoffDelay", () => {
  it("doubles the ceiling per retry up to maxDelayMs", () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, opts))).toEqual([75, 150, 300, 600, 750, 750]);
  });
});

describe("requestWithRetry and postJsonWithRetry", () => {
  it("retries a body that breaks off inside the attempt, within the one budget", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { "content-length": "100" });
        res.write("half", () => res.socket?.destroy());
      } else {
        res.end("whole body");
      }
    });
    const http = options({ retries: 1 });
    const text = await requestWithRetry({ method: "GET", url: server.url }, http, (r) => r.text());
    expect(text).toBe("whole body");
    expect(http.retryLog.map((r) => r.reason)).toEqual([expect.stringMatching(/^transfer interrupted: /)]);
    // One budget: a status failure and a broken transfer count alike.
    const always = await serve((_req, res, n) => {
      if (n % 2 === 1) {
        res.writeHead(503).end();
      } else {
        res.writeHead(200, { "content-length": "100" });
        res.write("half", () => res.socket?.destroy());
      }
    });
    const error = await requestWithRetry({ method: "GET", url: always.url }, options({ retries: 3 }), (r) =>
      r.text(),
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ method: "GET", attempts: 4 });
    expect(always.requests).toHaveLength(4);
  });

  it("follows a consumer's verdict: AttemptFailed retryable or not, other errors as they are", async () => {
    const server = await serve((_req, res) => res.end("x"));
    let calls = 0;
    const retried = await requestWithRetry({ method: "GET", url: server.url }, options(), async () => {
      calls++;
      if (calls < 3) {
        throw new AttemptFailed("not yet", { retryable: true });
      }
      return "done";
    });
    expect(retried).toBe("done");
    const refused = await requestWithRetry({ method: "GET", url: server.url }, options(), async () => {
      throw new AttemptFailed("an HTML page", { retryable: false });
    }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ attempts: 1, retryable: false, status: 200 });
    expect(String(refused)).toMatch(/failed after 1 attempt: an HTML page \(not retryable\)/);
    const local = new Error("disk full");
    await expect(
      requestWithRetry({ method: "GET", url: server.url }, options(), async () => {
        throw local;
      }),
    ).rejects.toBe(local);
  });

  it("retries a JSON answer cut short, but not one that is not JSON at all", async () => {
    const page = JSON.stringify({ notices: [1, 2, 3], next: "t1" });
    const cut = await serve((_req, res, n) => res.end(n === 1 ? page.slice(0, 20) : page));
    const http = options();
    const value = await postJsonWithRetry(cut.url, { q: 1 }, http, (json) => ({ ok: true, value: json }));
    expect(value).toEqual(JSON.parse(page));
    expect(http.retryLog.map((r) => r.reason)).toEqual([expect.stringMatching(/JSON response ends early/)]);
    expect(cut.requests[0]?.method).toBe("POST");
    const html = await serve((_req, res) => res.end("<html>maintenance</html>"));
    const error = await postJsonWithRetry(html.url, {}, options(), (json) => ({
      ok: true,
      value: json,
    })).catch((err: unknown) => err);
    expect(error).toMatchObject({ method: "POST", attempts: 1, retryable: false });
    expect(html.requests).toHaveLength(1);
  });
});
