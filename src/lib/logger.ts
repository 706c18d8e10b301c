import type { Logger } from "pino";
import { pino } from "pino";

export type { Logger };

/**
 * JSON lines, on stdout for the server; the CLI logs to stderr, keeping stdout for its one result line; a worker
 * thread hands each line to its server (fleet/leader-thread.ts). Payment headers and client keys never reach a log
 * line: the redact list is the safety net, the code simply does not log them.
 */
export function createLogger(
  level: string,
  stream: "stdout" | "stderr" | ((line: string) => void) = "stdout",
): Logger {
  const options = {
    level,
    base: { service: "procurement-intel" },
    redact: {
      paths: [
        'req.headers["x-payment"]',
        'req.headers["payment-signature"]',
        'req.headers["x-client-key"]',
        'req.headers["x-operator-key"]',
      ],
      remove: true,
    },
  };
  if (typeof stream === "function") {
    return pino(options, { write: stream });
  }
  return stream === "stderr" ? pino(options, pino.destination(2)) : pino(options);
}
