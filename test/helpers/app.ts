import { createApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { Db, Queryable } from "../../src/db/client.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { createPayments } from "../../src/payments/index.ts";
import { subscriptionSettingsFrom } from "../../src/payments/subscription/settings.ts";
import { type Facilitator, resolveX402Settings } from "../../src/payments/x402/index.ts";

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
  /** Where read-only verbs read (a read replica); defaults to the domain's `db`. */
  readDb?: Queryable;
  /** x402 mode: the facilitator to verify and settle with (default: an unreachable one, never the network). */
  facilitator?: Facilitator;
}

/** The payTo of x402-mode test apps when a test does not set X402_PAY_TO. */
export const TEST_PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

/** Tests never reach a real facilitator: without an injected one, x402 calls find it unreachable. */
const unreachableFacilitator: Facilitator = {
  verify: () => Promise.reject(new Error("no facilitator in this test")),
  settle: () => Promise.reject(new Error("no facilitator in this test")),
};

export function buildTestApp(options: TestAppOptions) {
  // Rate limiting is off unless a test turns it on: suites make many calls as one in-process "client".
  const config: Config = loadConfig({
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_MINUTE: "0",
    ...(options.env?.PAYMENTS_MODE === "x402" ? { X402_PAY_TO: TEST_PAY_TO } : {}),
    ...options.env,
  });
  const now = options.now ?? (() => new Date());
  const log = createLogger(config.LOG_LEVEL);
  const payments = createPayments({
    db: options.db,
    dataDb: options.readDb,
    now,
    mode: config.PAYMENTS_MODE,
    devTokenTtlSeconds: config.DEV_TOKEN_TTL_SECONDS,
    subscription: subscriptionSettingsFrom(config),
    x402:
      config.PAYMENTS_MODE === "x402"
        ? {
            settings: resolveX402Settings(config),
            facilitator: options.facilitator ?? unreachableFacilitator,
          }
        : undefined,
  });
  const app = createApp({
    config,
    domain: { db: options.domainDb ?? options.db, log, now, readDb: options.readDb },
    payments,
  });
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
