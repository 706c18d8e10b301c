import type { ServerResponse } from "node:http";

/**
 * What a flaky upstream does to one request, for the fault-injecting feed and TED servers:
 * - `500`, `503`: an error status; `429`: rate-limited with `Retry-After: 3`;
 * - `hang`: never answers (the client's header timeout fires);
 * - `reset`: drops the connection without answering;
 * - `stall`: sends the headers and half the body, then nothing (the client's body idle timeout fires);
 * - `truncate-transfer`: declares the full Content-Length, sends half, closes (a broken transfer);
 * - `truncate-body`: sends half the body as a complete chunked response (a cut the transport cannot see).
 */
export type UpstreamFault =
  | "500"
  | "503"
  | "429"
  | "hang"
  | "reset"
  | "stall"
  | "truncate-transfer"
  | "truncate-body";

export const UPSTREAM_FAULTS: readonly UpstreamFault[] = [
  "500",
  "503",
  "429",
  "hang",
  "reset",
  "stall",
  "truncate-transfer",
  "truncate-body",
];

/** Seconds a `429` asks the client to wait. */
export const FAULT_RETRY_AFTER_S = 3;

/** Answers `res` with `fault` instead of `body` (the answer it spoils). */
export function answerWithFault(
  res: ServerResponse,
  fault: UpstreamFault,
  body: string,
  contentType: string,
): void {
  const half = Buffer.from(body).subarray(0, Math.floor(Buffer.byteLength(body) / 2));
  switch (fault) {
    case "500":
    case "503":
      res.writeHead(Number(fault), { "content-type": "text/plain" }).end("upstream trouble");
      return;
    case "429":
      res
        .writeHead(429, { "retry-after": String(FAULT_RETRY_AFTER_S), "content-type": "text/plain" })
        .end("Too Many Requests");
      return;
    case "hang":
      return;
    case "reset":
      res.socket?.destroy();
      return;
    case "stall":
      res.writeHead(200, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) });
      res.write(half);
      return;
    case "truncate-transfer":
      res.writeHead(200, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) });
      res.write(half, () => res.socket?.destroy());
      return;
    case "truncate-body":
      res.writeHead(200, { "content-type": contentType });
      res.end(half);
      return;
  }
}
