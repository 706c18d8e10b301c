import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { isUuid } from "../../lib/ids.ts";
import type { Logger } from "../../lib/logger.ts";
import type { AppEnv } from "../env.ts";

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is a UUID, else a new one), returns it in the
 * `X-Request-Id` header and in `meta.request_id`, and puts it on every log line of the request.
 */
export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && isUuid(incoming) ? incoming.toLowerCase() : randomUUID();
    const requestLog = log.child({ requestId });
    c.set("requestId", requestId);
    c.set("log", requestLog);
    const started = performance.now();
    c.header("X-Request-Id", requestId);
    await next();
    // Responses built outside the context helpers (e.g. by a transport) get the header here.
    c.res.headers.set("X-Request-Id", requestId);
    requestLog.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  };
}
