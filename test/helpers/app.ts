import { createApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { createPayments } from "../../src/payments/index.ts";

/** A clock tests can move. */
export function testClock(
  start = new Date("2026-06-01T10:00:00.000Z"),
): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  const clock = () => new Date(now);
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

export interface TestAppOptions {
  db: Db;
  env?: Record<string, string>;
  now?: Clock;
  /** Storage the domain verbs see; defaults to `db` (tests swap it to simulate failures). */
  domainDb?: Db;
}

export function buildTestApp(options: TestAppOptions) {
  const config: Config = loadConfig({ LOG_LEVEL: "silent", ...options.env });
  const now = options.now ?? (() => new Date());
  const log = createLogger(config.LOG_LEVEL);
  const payments = createPayments({
    db: options.db,
    now,
    mode: config.PAYMENTS_MODE,
    devTokenTtlSeconds: config.DEV_TOKEN_TTL_SECONDS,
  });
  const app = createApp({ config, domain: { db: options.domainDb ?? options.db, log, now }, payments });
  return { app, config, payments };
}

type App = ReturnType<typeof buildTestApp>["app"];

export async function getJson(app: App, path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  return { res, body: (await res.json()) as Record<string, unknown> & { data?: unknown; meta?: unknown } };
}

export async function postJson(app: App, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

/** Asks the dev faucet for a token for `endpoint`. */
export async function devToken(app: App, endpoint: string): Promise<string> {
  const { res, body } = await postJson(app, "/v1/dev-faucet", { endpoint });
  if (res.status !== 200 || typeof body.token !== "string") {
    throw new Error(`faucet refused: ${res.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}
