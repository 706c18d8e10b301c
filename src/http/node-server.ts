import { createServer, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { getRequestListener, RequestError } from "@hono/node-server";
import { errorBody } from "./errors.ts";

/**
 * The Node HTTP server that serves the app (what `@hono/node-server`'s `serve` builds), answering in the spec's
 * error envelope the requests that never reach the app:
 * - those Node's HTTP parser refuses (`clientError`): a raw space, control character or non-ASCII byte in the
 *   request target, headers over Node's 16 KB limit, a forbidden character in a header, conflicting
 *   Content-Length and Transfer-Encoding. Node would answer a bare `400 Bad Request` without a body;
 * - those the adapter cannot turn into a `Request` (`RequestError`): an asterisk-form or unusable target, a
 *   backslash in the path, a missing or invalid Host header. The adapter would answer an empty 400.
 * Both are `invalid_query` 400s, as the app answers malformed bodies.
 */
export function createHttpServer(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { hostname?: string } = {},
): Server {
  const listener = getRequestListener(fetch, {
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
    errorHandler: answerUnusableRequest,
  });
  const server = createServer(listener);
  server.on("clientError", answerClientError);
  return server;
}

const MALFORMED_HINT =
  "Percent-encode the path and query (no raw spaces, control characters or non-ASCII bytes), send an origin-" +
  "form target such as /v1/search?q=…, one Host header, header values without control characters, and one " +
  "Content-Length or Transfer-Encoding.";

/** The adapter's errors: the request could not be built (a `RequestError`), or, never expected, the app threw. */
function answerUnusableRequest(error: unknown): Response {
  const body =
    error instanceof RequestError
      ? errorBody("invalid_query", `Malformed HTTP request: ${error.message}.`, MALFORMED_HINT)
      : errorBody("internal", "Internal server error.", "Retry later; nothing was charged.");
  return new Response(JSON.stringify(body), {
    status: error instanceof RequestError ? 400 : 500,
    headers: { "content-type": "application/json" },
  });
}

/** `clientError`: answers in the envelope, then closes the connection (after a parse error it cannot be trusted). */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // The client went away (or the socket is already answered): there is no one to tell.
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const { message, hint } = describeParseError(error.code);
  const body = JSON.stringify(errorBody("invalid_query", message, hint));
  socket.end(
    "HTTP/1.1 400 Bad Request\r\n" +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

function describeParseError(code: string | undefined): { message: string; hint: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        message: "Request headers are larger than 16 KB.",
        hint: "Send shorter headers and a shorter URL; no parameter of this API needs more than a few hundred bytes.",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return {
        message: "The request was not received in time.",
        hint: "Send the whole request at once and retry.",
      };
    default:
      return { message: `Malformed HTTP request (${code ?? "parse error"}).`, hint: MALFORMED_HINT };
  }
}
