import { createHmac, timingSafeEqual } from "node:crypto";
import {
  type CheckoutRequest,
  type CheckoutSession,
  type MorEvent,
  type MorPayment,
  type MorProvider,
  MorProviderError,
  type WebhookVerification,
} from "./provider.ts";

/**
 * Paddle Billing as the merchant of record, following its published API:
 *
 * - Checkout: `POST /customers {email}` (201 → `data.id` `ctm_…`; 409 `customer_already_exists` names the
 *   existing customer in `error.detail`), then `POST /transactions {items: [{price_id, quantity}], customer_id,
 *   custom_data, collection_mode: "automatic"}` (201 → `data.id` `txn_…`, `data.checkout.url`). Requests carry
 *   `Authorization: Bearer <api key>`.
 * - Webhooks: header `Paddle-Signature: ts=<unix seconds>;h1=<hex>` where h1 is HMAC-SHA256, keyed with the
 *   notification destination's secret, of `<ts>:<raw body>`; several h1 values may be present while a secret is
 *   rotated. Paddle's SDKs reject signatures older than 5 seconds. Events are `{event_id, event_type,
 *   occurred_at, notification_id, data}`; a paid checkout is `transaction.completed` whose `data` is the
 *   transaction (with our `custom_data`, `subscription_id` and `details.totals`).
 */

export interface PaddleSettings {
  apiUrl: string;
  apiKey: string;
  priceId: string;
  webhookSecret: string;
  /** Largest accepted distance between the signature timestamp and now, in seconds. */
  toleranceSeconds: number;
  /** Timeout of one API request, in milliseconds. */
  timeoutMs?: number;
}

export const PADDLE_SIGNATURE_HEADER = "paddle-signature";

export function createPaddleProvider(settings: PaddleSettings): MorProvider {
  const base = settings.apiUrl.replace(/\/+$/, "");
  const timeoutMs = settings.timeoutMs ?? 15_000;

  async function call(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${settings.apiKey}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new MorProviderError(
        `paddle POST ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  }

  async function customerId(email: string): Promise<string> {
    const { status, json } = await call("/customers", { email });
    if (status === 201 || status === 200) {
      const id = stringAt(json, ["data", "id"]);
      if (id) {
        return id;
      }
    }
    // An address Paddle already knows: reuse that customer, whose id the error names.
    if (status === 409 && stringAt(json, ["error", "code"]) === "customer_already_exists") {
      const existing = /\bctm_[a-z\d]+\b/.exec(stringAt(json, ["error", "detail"]) ?? "")?.[0];
      if (existing) {
        return existing;
      }
    }
    throw new MorProviderError(`paddle POST /customers answered ${status} ${describeError(json)}`);
  }

  return {
    name: "paddle",
    async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
      const customer = await customerId(request.email);
      const { status, json } = await call("/transactions", {
        items: [{ price_id: settings.priceId, quantity: 1 }],
        customer_id: customer,
        custom_data: request.customData,
        collection_mode: "automatic",
      });
      if (status !== 201 && status !== 200) {
        throw new MorProviderError(`paddle POST /transactions answered ${status} ${describeError(json)}`);
      }
      const id = stringAt(json, ["data", "id"]);
      const url = stringAt(json, ["data", "checkout", "url"]);
      if (!id || !url) {
        // Paddle leaves checkout.url null when the account has no default payment link.
        throw new MorProviderError(
          "paddle created the transaction without a checkout URL; set a default payment link in Paddle",
        );
      }
      return { id, url };
    },

    verifyWebhook(rawBody, header, now): WebhookVerification {
      return verifyPaddleSignature(rawBody, header(PADDLE_SIGNATURE_HEADER), settings, now);
    },

    parseEvent(rawBody): MorEvent | undefined {
      return parsePaddleEvent(rawBody);
    },
  };
}

/** HMAC-SHA256 (hex) of `<ts>:<raw body>` with the endpoint secret: the `h1` Paddle sends. */
export function paddleSignature(rawBody: string, ts: number, secret: string): string {
  return createHmac("sha256", secret).update(`${ts}:${rawBody}`).digest("hex");
}

export function verifyPaddleSignature(
  rawBody: string,
  header: string | undefined,
  settings: Pick<PaddleSettings, "webhookSecret" | "toleranceSeconds">,
  now: Date,
): WebhookVerification {
  if (!header) {
    return { ok: false, reason: "the Paddle-Signature header is missing" };
  }
  let ts: number | undefined;
  const h1: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq > 0 && key === "ts" && /^\d{1,12}$/.test(value)) {
      ts = Number(value);
    } else if (eq > 0 && key === "h1" && /^[0-9a-f]{64}$/i.test(value)) {
      h1.push(value.toLowerCase());
    }
  }
  if (ts === undefined || h1.length === 0) {
    return { ok: false, reason: "the Paddle-Signature header is not of the form ts=<seconds>;h1=<hex>" };
  }
  const age = Math.abs(now.getTime() / 1000 - ts);
  if (age > settings.toleranceSeconds) {
    return {
      ok: false,
      reason: `the signature timestamp is ${Math.round(age)} s away from now (tolerance ${settings.toleranceSeconds} s)`,
    };
  }
  const expected = Buffer.from(paddleSignature(rawBody, ts, settings.webhookSecret), "hex");
  // Every candidate is compared, in constant time, so timing says nothing about which (if any) matched.
  let matched = false;
  for (const candidate of h1) {
    const given = Buffer.from(candidate, "hex");
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      matched = true;
    }
  }
  return matched ? { ok: true } : { ok: false, reason: "the signature does not match the body" };
}

export function parsePaddleEvent(rawBody: string): MorEvent | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody);
  } catch {
    return undefined;
  }
  const id = stringAt(payload, ["event_id"]);
  const type = stringAt(payload, ["event_type"]);
  if (!id || !type || !isRecord(valueAt(payload, ["data"]))) {
    return undefined;
  }
  const event: MorEvent = { id, type, payload };
  if (type === "transaction.completed") {
    const payment = paymentOf(payload);
    if (payment) {
      event.payment = payment;
    }
  }
  return event;
}

function paymentOf(payload: unknown): MorPayment | undefined {
  const transactionId = stringAt(payload, ["data", "id"]);
  if (!transactionId) {
    return undefined;
  }
  // Totals are strings in the currency's lowest denomination; grand_total is what the customer paid.
  const total = stringAt(payload, ["data", "details", "totals", "grand_total"]);
  return {
    transactionId,
    subscriptionId: stringAt(payload, ["data", "subscription_id"]) ?? null,
    accountId: idAt(payload, ["data", "custom_data", "account_id"]),
    leadId: idAt(payload, ["data", "custom_data", "lead_id"]),
    amountCents: total && /^\d{1,15}$/.test(total) ? Number(total) : null,
    currency: stringAt(payload, ["data", "currency_code"]) ?? null,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) {
      return undefined;
    }
    current = current[key];
  }
  return current;
}

function stringAt(value: unknown, path: readonly string[]): string | undefined {
  const found = valueAt(value, path);
  return typeof found === "string" && found !== "" ? found : undefined;
}

/** Our ids travel as strings in custom data; anything else is not ours. */
function idAt(value: unknown, path: readonly string[]): number | null {
  const found = valueAt(value, path);
  const text = typeof found === "number" ? String(found) : found;
  return typeof text === "string" && /^[1-9]\d{0,15}$/.test(text) ? Number(text) : null;
}

function describeError(json: unknown): string {
  const code = stringAt(json, ["error", "code"]);
  const detail = stringAt(json, ["error", "detail"]);
  return [code, detail].filter(Boolean).join(": ") || "(no error body)";
}
