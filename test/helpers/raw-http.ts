import { connect } from "node:net";
import { createHttpServer } from "../../src/http/node-server.ts";

/**
 * A minimal HTTP/1.1 client over a raw socket, for hostile requests: the request target and the header
 * bytes go out exactly as given (fetch and http.request would encode or refuse them), one connection per
 * request, and every request is bounded in time, so a server that hangs fails the test instead of stalling it.
 */

export interface RawRequest {
  method: string;
  /** Sent as is on the request line: percent escapes, raw bytes and all. */
  target: string;
  headers?: [string, string][];
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
  /** Milliseconds from connect to the end of the response. */
  elapsedMs: number;
}

/** The request did not complete within its bound: the server hung, or stopped mid-answer. */
export class RawTimeoutError extends Error {
  override readonly name = "RawTimeoutError";
}

/** Sends one request to `127.0.0.1:port` and reads the whole answer; rejects after `timeoutMs`. */
export function rawRequest(port: number, request: RawRequest, timeoutMs = 5_000): Promise<RawResponse> {
  const started = performance.now();
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const headers: [string, string][] = [
    ["host", `127.0.0.1:${port}`],
    ["connection", "close"],
    ...(request.headers ?? []),
  ];
  if (body.length > 0 && !headers.some(([name]) => name.toLowerCase() === "content-length")) {
    headers.push(["content-length", String(body.length)]);
  }
  const head = Buffer.from(
    `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`,
    "latin1",
  );
  return new Promise<RawResponse>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new RawTimeoutError(
          `${request.method} ${request.target.slice(0, 120)}: no answer in ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    socket.on("connect", () => {
      socket.write(head);
      if (body.length > 0) {
        // The server may answer (413, 400) and close before reading the whole body: that is not our error.
        socket.write(body, () => undefined);
      }
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A reset after the server has answered (it refused a body it did not read) still leaves the answer.
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        resolve({ ...parseResponse(Buffer.concat(chunks)), elapsedMs: performance.now() - started });
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseResponse(raw: Buffer): Omit<RawResponse, "elapsedMs"> {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) {
    throw new Error(
      `no complete HTTP response head (${raw.length} bytes): ${raw.toString("latin1").slice(0, 200)}`,
    );
  }
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) {
    throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  }
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    body = dechunk(body);
  } else if (headers.has("content-length")) {
    body = body.subarray(0, Number(headers.get("content-length")));
  }
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) {
      throw new Error("chunked body ends without its last chunk");
    }
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) {
      return Buffer.concat(parts);
    }
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Serves a fetch handler on a random loopback port with the real server's Node server (src/http/node-server.ts). */
export async function listen(
  fetchHandler: (request: Request) => Response | Promise<Response>,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createHttpServer(fetchHandler, { hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
