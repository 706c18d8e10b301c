import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { sha256Hex } from "../../lib/ids.ts";
import type { AppEnv } from "../env.ts";
import { errorBody } from "../errors.ts";

/**
 * Per-client token buckets: a client may make `burst` requests at once and `perMinute` per minute on average,
 * on every route. The client is its `x-client-key` (hashed; never kept in clear) when it sends one, else its
 * IP address. Over the limit the answer is 429 `rate_limited` with `Retry-After` (whole seconds until the next
 * request would be accepted).
 *
 * The buckets live in this process's memory: N replicas behind a load balancer allow up to N times the
 * configured rate in total, so set `RATE_LIMIT_PER_MINUTE` to the wanted total divided by N (see README).
 */

export interface RateLimitOptions {
  perMinute: number;
  burst: number;
  /** The last `X-Forwarded-For` entry is the client IP (behind exactly one trusted reverse proxy). */
  trustProxy: boolean;
  /** Milliseconds since the epoch (tests move it). */
  now(): number;
  /** Buckets kept at most; the least recently used are dropped first. */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const perMs = options.perMinute / 60_000;
  const capacity = options.burst;
  const maxClients = options.maxClients ?? 100_000;
  // Insertion order is recency order: a touched bucket is moved to the end.
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, nowMs: number): number =>
    Math.min(capacity, bucket.tokens + Math.max(0, nowMs - bucket.updatedMs) * perMs);

  // Past the cap the least recently seen clients go first; they restart with a full bucket if they return.
  const evict = () => {
    for (const id of buckets.keys()) {
      if (buckets.size <= maxClients) {
        return;
      }
      buckets.delete(id);
    }
  };

  return async (c, next) => {
    const id = clientId(c, options.trustProxy);
    const nowMs = options.now();
    const bucket = buckets.get(id) ?? { tokens: capacity, updatedMs: nowMs };
    const tokens = refill(bucket, nowMs);
    buckets.delete(id);
    if (tokens < 1) {
      buckets.set(id, { tokens, updatedMs: nowMs });
      const retryAfter = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
      c.header("Retry-After", String(retryAfter));
      setHeaders((name, value) => c.header(name, value), tokens);
      return c.json(
        errorBody(
          "rate_limited",
          `Too many requests: at most ${options.perMinute} per minute (bursts of ${capacity}) per client.`,
          `Retry after ${retryAfter} s (Retry-After header). Clients are told apart by x-client-key, else by IP.`,
        ),
        429,
      );
    }
    const left = tokens - 1;
    buckets.set(id, { tokens: left, updatedMs: nowMs });
    if (buckets.size > maxClients) {
      evict();
    }
    await next();
    // After the handler: answers built outside the context helpers (the MCP transport) get them too.
    setHeaders((name, value) => c.res.headers.set(name, value), left);
  };

  /**
   * `RateLimit-Limit` (the bucket's size), `RateLimit-Remaining` (whole requests left), `RateLimit-Reset`
   * (seconds until the bucket is full again) and `RateLimit-Policy` (the refill rate per 60-second window).
   */
  function setHeaders(set: (name: string, value: string) => void, tokensLeft: number): void {
    const remaining = Math.max(0, Math.floor(tokensLeft));
    const reset = Math.max(0, Math.ceil((capacity - tokensLeft) / perMs / 1000));
    set("RateLimit-Limit", String(capacity));
    set("RateLimit-Remaining", String(remaining));
    set("RateLimit-Reset", String(reset));
    set("RateLimit-Policy", `${options.perMinute};w=60`);
  }
}

/** `k:<sha256 of the client key>` or `ip:<address>`; `ip:unknown` when there is no socket (in-process tests). */
function clientId(c: Context<AppEnv>, trustProxy: boolean): string {
  const key = c.req.header("x-client-key")?.trim();
  if (key) {
    return `k:${sha256Hex(key)}`;
  }
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) {
      return `ip:${forwarded}`;
    }
  }
  return `ip:${socketAddress(c) ?? "unknown"}`;
}

function socketAddress(c: Context<AppEnv>): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // `app.request()` has no Node socket behind it.
    return undefined;
  }
}
