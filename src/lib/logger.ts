import type { Logger } from "pino";
import { pino } from "pino";

export type { Logger };

/**
 * JSON lines on stdout. Payment headers and client keys never reach a log line: the redact list is the
 * safety net, the code simply does not log them.
 */
export function createLogger(level: string): Logger {
  return pino({
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
  });
}
