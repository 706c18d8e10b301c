import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the Paddle Billing API (127.0.0.1, random port), answering the two calls the checkout
 * makes the way Paddle documents them: `POST /customers` (201, or 409 `customer_already_exists` naming the
 * existing customer) and `POST /transactions` (201 with `data.checkout.url`). Requests without the expected
 * bearer key get Paddle's 403. Every request is recorded.
 */

export const PADDLE_TEST_KEY = "pdl_sdbx_apikey_01testtesttesttesttesttest";
export const PADDLE_TEST_PRICE = "pri_01hv0000000000000000000000";
export const PADDLE_TEST_SECRET = "pdl_ntfset_01test_secretsecretsecretsecret";

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface PaddleServer {
  url: string;
  requests: RecordedRequest[];
  /** Request bodies of the transactions created, by transaction id. */
  transactions: Map<string, Record<string, unknown>>;
  /** The next `POST /transactions` answers this status with a Paddle error body. */
  failNextTransaction(status: number): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function startPaddleServer(): Promise<PaddleServer> {
  const requests: RecordedRequest[] = [];
  const customers = new Map<string, string>();
  const created = new Map<string, Record<string, unknown>>();
  let failNext: number | null = null;
  let url = "";

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? "/";
      requests.push({ method: req.method ?? "", path, authorization: req.headers.authorization, body });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(payload));
      };
      const meta = { request_id: "00000000-0000-0000-0000-000000000000" };
      if (req.headers.authorization !== `Bearer ${PADDLE_TEST_KEY}`) {
        send(403, {
          error: {
            type: "request_error",
            code: "forbidden",
            detail: "You aren't permitted to perform this request.",
          },
          meta,
        });
        return;
      }
      if (req.method === "POST" && path === "/customers") {
        const email = String(body.email ?? "").toLowerCase();
        const existing = customers.get(email);
        if (existing) {
          send(409, {
            error: {
              type: "request_error",
              code: "customer_already_exists",
              detail: `customer email conflicts with customer of id ${existing}`,
              documentation_url: "https://developer.paddle.com/errors/customers/customer_already_exists",
            },
            meta,
          });
          return;
        }
        const id = `ctm_01test${String(customers.size + 1).padStart(18, "0")}`;
        customers.set(email, id);
        send(201, { data: { id, email, status: "active", custom_data: null }, meta });
        return;
      }
      if (req.method === "POST" && path === "/transactions") {
        if (failNext !== null) {
          const status = failNext;
          failNext = null;
          send(status, {
            error: { type: "api_error", code: "internal_error", detail: "Something went wrong" },
            meta,
          });
          return;
        }
        const id = `txn_01test${String(created.size + 1).padStart(18, "0")}`;
        created.set(id, body);
        send(201, {
          data: {
            id,
            status: "ready",
            customer_id: body.customer_id ?? null,
            custom_data: body.custom_data ?? null,
            collection_mode: body.collection_mode ?? "automatic",
            items: body.items,
            checkout: { url: `${url}/pay?_ptxn=${id}` },
          },
          meta,
        });
        return;
      }
      send(404, { error: { type: "request_error", code: "not_found", detail: "Not found" }, meta });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    transactions: created,
    failNextTransaction(status) {
      failNext = status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `Paddle-Signature` for a body at `ts` (seconds), computed as Paddle documents it, independently of src/. */
export function signPaddle(rawBody: string, ts: number, secret = PADDLE_TEST_SECRET): string {
  const h1 = createHmac("sha256", secret).update(`${ts}:${rawBody}`).digest("hex");
  return `ts=${ts};h1=${h1}`;
}

let eventCounter = 0;

/** A `transaction.completed` event shaped like Paddle's, for a checkout our service opened. */
export function transactionCompleted(options: {
  transactionId: string;
  customData?: Record<string, string> | null;
  subscriptionId?: string | null;
  eventId?: string;
  grandTotal?: string;
}): { event_id: string; body: string } {
  eventCounter += 1;
  const eventId = options.eventId ?? `evt_01test${String(eventCounter).padStart(18, "0")}`;
  const payload = {
    event_id: eventId,
    event_type: "transaction.completed",
    occurred_at: "2026-06-01T10:00:00.000000Z",
    notification_id: `ntf_01test${String(eventCounter).padStart(18, "0")}`,
    data: {
      id: options.transactionId,
      status: "completed",
      customer_id: "ctm_01test000000000000000001",
      origin: "web",
      subscription_id: options.subscriptionId ?? null,
      custom_data: options.customData ?? null,
      currency_code: "EUR",
      collection_mode: "automatic",
      details: {
        totals: {
          subtotal: "2437",
          tax: "463",
          total: "2900",
          grand_total: options.grandTotal ?? "2900",
          currency_code: "EUR",
        },
      },
      items: [{ price: { id: PADDLE_TEST_PRICE }, quantity: 1 }],
    },
  };
  return { event_id: eventId, body: JSON.stringify(payload) };
}
