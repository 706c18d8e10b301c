import { z } from "zod";

/**
 * The whole environment contract of the service. Nothing else reads `process.env`: `loadConfig` parses it
 * once at start-up and the typed result travels down through `deps`. Every variable is listed, with its
 * default and meaning, in the README's configuration table (a test keeps the two in step).
 */

const PLACSP_BASE = "https://contrataciondelsectorpublico.gob.es/sindicacion/";

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().min(1);

export const ConfigSchema = z.object({
  PORT: port.default(8080).describe("TCP port the HTTP server listens on (0 picks a free port)."),
  HOST: z.string().min(1).default("0.0.0.0").describe("Interface the HTTP server binds to."),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe("Public base URL used in llms.txt and OpenAPI `servers`; unset = derived from each request."),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino log level."),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
    .optional()
    .describe("PostgreSQL connection string. Unset = embedded PGlite in DATA_DIR."),
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
    .optional()
    .describe(
      "PostgreSQL connection string of a read replica for read-only queries (search, tenders, companies, buyers); payments, ingestion and writes stay on DATABASE_URL, which it requires. Unset = DATABASE_URL.",
    ),
  DATABASE_POOL_SIZE: positiveInt
    .max(200)
    .default(10)
    .describe("Maximum connections in the PostgreSQL pool."),
  DATA_DIR: z.string().min(1).default("./data").describe("Directory of the embedded PGlite database."),
  IMPORT_DIR: z
    .string()
    .min(1)
    .default("./import")
    .describe(
      "Folder the running server imports from: drop PLACSP .atom/.zip or TED .xml/.tar.gz files in it; they move to done/ or failed/.",
    ),
  IMPORT_SCHEDULE: z
    .string()
    .regex(/^(off|\d+[smh])$/, "must be off or an interval such as 10s or 1m")
    .default("10s")
    .describe("How often the server looks into IMPORT_DIR (`off` disables the import folder)."),
  PAYMENTS_MODE: z
    .enum(["dev", "x402"])
    .default("dev")
    .describe("`dev`: faucet tokens pay for calls (offline, for development). `x402`: real USDC payments."),
  DEV_TOKEN_TTL_SECONDS: positiveInt
    .max(86_400)
    .default(900)
    .describe("Lifetime of a dev-faucet token in seconds (dev mode only)."),
  X402_NETWORK: z
    .string()
    .regex(/^eip155:[1-9]\d*$/, "must be a CAIP-2 EVM network such as eip155:84532 or eip155:8453")
    .default("eip155:84532")
    .describe("CAIP-2 network of x402 payments (`eip155:84532` Base Sepolia, `eip155:8453` Base)."),
  X402_PAY_TO: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address")
    .optional()
    .describe("Address that receives x402 payments; required when PAYMENTS_MODE=x402."),
  X402_FACILITATOR_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://x402.org/facilitator")
    .describe("x402 facilitator that verifies and settles payments (`POST /verify`, `POST /settle`)."),
  X402_ASSET: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte token address")
    .optional()
    .describe(
      "Token x402 payments are made in; unset = the network's USDC. Must be a 6-decimal EIP-3009 " +
        "stablecoin that @x402/evm knows on X402_NETWORK.",
    ),
  X402_MAX_TIMEOUT_SECONDS: positiveInt
    .max(3600)
    .default(300)
    .describe("Seconds a signed x402 payment stays valid (`maxTimeoutSeconds` of the requirements)."),
  MOR_PROVIDER: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{1,31}$/, "must be a lower-case provider name such as paddle")
    .default("paddle")
    .describe("Merchant-of-record provider named in pricing (the spec's neutral `mor`)."),
  MOR_PRICE_MONTHLY_CENTS: positiveInt
    .max(1_000_000)
    .default(2900)
    .describe("Monthly subscription price in EUR cents, shown by GET /v1/pricing."),
  MOR_API_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://api.paddle.com")
    .describe("Base URL of the provider API (Paddle sandbox: https://sandbox-api.paddle.com)."),
  MOR_API_KEY: z
    .string()
    .min(8)
    .optional()
    .describe(
      "Provider API key. The subscription is offered only when MOR_API_KEY, MOR_PRICE_ID and " +
        "MOR_WEBHOOK_SECRET are all set.",
    ),
  MOR_PRICE_ID: z
    .string()
    .regex(/^pri_[a-z0-9]+$/, "must be a Paddle price id such as pri_01h…")
    .optional()
    .describe("Provider price id of the monthly subscription (Paddle `pri_…`)."),
  MOR_WEBHOOK_SECRET: z
    .string()
    .min(8)
    .optional()
    .describe("Secret key of the provider's webhook destination (Paddle `pdl_ntfset_…`)."),
  MOR_WEBHOOK_TOLERANCE_SECONDS: positiveInt
    .max(3600)
    .default(5)
    .describe("Largest accepted age (or clock skew) of a webhook signature timestamp, in seconds."),
  MOR_GRANT_CENTS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(2500)
    .describe("Prepaid credits (USD cents) granted once per completed subscription payment."),
  OPERATOR_KEY: z
    .string()
    .min(16)
    .optional()
    .describe("Key for GET /v1/stats (header x-operator-key); unset = the endpoint is disabled (404)."),
  RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(300)
    .describe("Requests per minute one client (client key, else IP) may make, per process; 0 = no limit."),
  RATE_LIMIT_BURST: positiveInt
    .max(1_000_000)
    .optional()
    .describe(
      "Requests a client may make at once before the per-minute rate applies; unset = a minute's worth.",
    ),
  RATE_LIMIT_TRUST_PROXY: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true")
    .describe(
      "`true`: the client IP is the last X-Forwarded-For entry (set it behind exactly one reverse proxy).",
    ),
  RETENTION_SCHEDULE: z
    .string()
    .regex(/^(off|\d+[smh])$/, "must be off or an interval such as 24h")
    .default("24h")
    .describe("How often `npm start` purges leads past their retention (`off` disables the job)."),
  PLACSP_FEED_643_URL: z
    .url({ protocol: /^https?$/ })
    .default(`${PLACSP_BASE}sindicacion_643/licitacionesPerfilesContratanteCompleto3.atom`)
    .describe("Head page of the PLACSP licitaciones feed (643, no minor contracts)."),
  PLACSP_FEED_1044_URL: z
    .url({ protocol: /^https?$/ })
    .default(`${PLACSP_BASE}sindicacion_1044/PlataformasAgregadasSinMenores.atom`)
    .describe("Head page of the PLACSP feed aggregated from regional platforms (1044)."),
  PLACSP_FEED_1143_URL: z
    .url({ protocol: /^https?$/ })
    .default(`${PLACSP_BASE}sindicacion_1143/contratosMenoresPerfilesContratantes.atom`)
    .describe("Head page of the PLACSP minor-contracts feed (1143)."),
  INGEST_SCHEDULE: z
    .string()
    .regex(/^(off|\d+[smh])$/, "must be off or an interval such as 30m, 1h or 6h")
    .default("1h")
    .describe(
      "How often `npm start` polls the PLACSP feeds (`off` disables all scheduled ingestion, TED included).",
    ),
  INGEST_TED_SCHEDULE: z
    .string()
    .regex(/^(off|\d+[smh])$/, "must be off or an interval such as 6h, 12h or 24h")
    .default("24h")
    .describe("How often `npm start` queries the TED Search API for new notices (`off` disables TED only)."),
  INGEST_ROLE: z
    .enum(["auto", "always", "never"])
    .default("auto")
    .describe(
      "Whether this process runs scheduled ingestion (PLACSP, TED, import folder, retention) when several share one PostgreSQL: `auto` competes for the one ingest-leader lock, `always` waits for it in line ahead of `auto` replicas, `never` never ingests.",
    ),
  INGEST_PLACSP_FEEDS: z
    .string()
    .regex(/^(643|1044|1143)(,(643|1044|1143))*$/, "must be a comma-separated list of 643, 1044, 1143")
    .default("643,1044,1143")
    .describe("PLACSP feeds polled by the schedule."),
  INGEST_MAX_PAGES: positiveInt
    .max(100_000)
    .default(50)
    .describe("Pages a scheduled run walks at most (back-fill history from the ZIP archives with the CLI)."),
  TED_API_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://api.ted.europa.eu")
    .describe("Base URL of the TED Search API v3 (`POST {url}/v3/notices/search`)."),
  TED_QUERY: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe(
      "Full TED expert query replacing the built one (countries, notice types, CPV prefixes); " +
        "the `publication-date>=` condition of each run is still added.",
    ),
  TED_CPV_PREFIXES: z
    .string()
    .regex(
      /^\d{2,8}(,\d{2,8})*$/,
      "must be a comma-separated list of 2 to 8 digit CPV prefixes such as 72,48,302",
    )
    .optional()
    .describe("Only TED notices with a CPV under one of these prefixes (comma list); unset = every CPV."),
  TED_BUYER_COUNTRIES: z
    .string()
    .regex(/^[A-Z]{3}(,[A-Z]{3})*$/, "must be a comma-separated list of ISO 3166-1 alpha-3 codes such as ESP")
    .default("ESP")
    .describe("Buyer countries of the TED query (ISO alpha-3, comma list)."),
  TED_LOOKBACK_DAYS: positiveInt
    .max(3650)
    .default(30)
    .describe("Days of TED notices a first run (no checkpoint yet) asks for; older ones come from packages."),
  INGEST_HTTP_TIMEOUT_MS: positiveInt
    .max(3_600_000)
    .default(120_000)
    .describe("Timeout of one upstream HTTP attempt, body included, in milliseconds."),
  INGEST_HTTP_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(4)
    .describe("Extra attempts after a failed upstream request (5xx, 429, timeout, connection error)."),
  INGEST_USER_AGENT: z
    .string()
    .min(3)
    .default("procurement-intel/0.1.0 (public-procurement research client)")
    .describe("User-Agent sent to upstream feeds."),
  CPV_LABELS: z
    .string()
    .min(1)
    .optional()
    .describe("Path or http(s) URL of a CPV label CSV (code,check_digit,label_en,label_es) loaded at start."),
  NUTS_LABELS: z
    .string()
    .min(1)
    .optional()
    .describe("Path or http(s) URL of a NUTS CSV (code,level,name,…) loaded at start."),
  TEST_PAID_DELAY_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .describe(
      "Tests only (refused unless NODE_ENV=test): a paid call carrying header x-test-paid-delay-ms waits that long, at most this, between taking its payment and producing its answer.",
    ),
});

export type Config = z.infer<typeof ConfigSchema>;

/** `30m` -> 1,800,000; `off` -> null. */
export function scheduleIntervalMs(schedule: string): number | null {
  const match = /^(\d+)([smh])$/.exec(schedule);
  if (!match) {
    return null;
  }
  const unit = { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Parses the environment. On failure throws a `ConfigError` whose message is one line naming the first bad
 * variable and what it accepts, e.g. `PAYMENTS_MODE: invalid value "foo"; allowed: dev | x402`.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "unset": `FOO= npm start` should fall back to the default, not fail.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = ConfigSchema.safeParse(cleaned);
  if (result.success) {
    if (result.data.PAYMENTS_MODE === "x402" && !result.data.X402_PAY_TO) {
      // Real payments need somewhere to go: refuse to start rather than answer 402s nobody can pay.
      throw new ConfigError(
        "X402_PAY_TO: required when PAYMENTS_MODE=x402 (the 0x address that receives the payments)",
      );
    }
    if (result.data.TEST_PAID_DELAY_MAX_MS !== undefined && cleaned.NODE_ENV !== "test") {
      // A hook that holds paid calls open exists for the fleet test's kill; production never runs it.
      throw new ConfigError("TEST_PAID_DELAY_MAX_MS: a test hook, accepted only with NODE_ENV=test");
    }
    if (result.data.DATABASE_READ_URL && !result.data.DATABASE_URL) {
      // A replica replicates a primary: with the embedded database there is nothing to replicate.
      throw new ConfigError(
        "DATABASE_READ_URL: requires DATABASE_URL (a read replica of that PostgreSQL database)",
      );
    }
    return result.data;
  }
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? "environment");
  throw new ConfigError(`${name}: ${describeIssue(issue, cleaned[name])}`);
}

function describeIssue(issue: z.core.$ZodIssue | undefined, value: string | undefined): string {
  if (!issue) {
    return "invalid configuration";
  }
  const shown = value === undefined ? "" : ` (got "${value}")`;
  if (issue.code === "invalid_value") {
    return `invalid value${shown}; allowed: ${issue.values.map(String).join(" | ")}`;
  }
  return `${issue.message}${shown}`;
}

/** Rows of the README configuration table: name, default, meaning. */
export function describeConfig(): { name: string; defaultValue: string; description: string }[] {
  return Object.entries(ConfigSchema.shape).map(([name, schema]) => {
    const parsed = (schema as z.ZodType).safeParse(undefined);
    const defaultValue = parsed.success && parsed.data !== undefined ? String(parsed.data) : "(unset)";
    return { name, defaultValue, description: schema.description ?? "" };
  });
}
