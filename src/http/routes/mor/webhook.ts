import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { SubscriptionService } from "../../../payments/subscription/subscription.ts";
import type { AppEnv } from "../../env.ts";
import { errorResponses } from "../../errors.ts";

const WebhookEventSchema = z
  .object({})
  .passthrough()
  .openapi("MorWebhookEvent", {
    description:
      "The provider's event, unchanged (Paddle: {event_id, event_type, occurred_at, notification_id, data}). " +
      "`transaction.completed` with our custom_data (or a known subscription_id) grants the subscription.",
  });

const WebhookResultSchema = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().openapi({ description: "The event id was seen before; nothing changed." }),
    outcome: z
      .enum(["granted", "ignored", "unmatched"])
      .nullable()
      .openapi({ description: "granted: subscription extended and credits granted; null for a duplicate." }),
  })
  .openapi("MorWebhookResult");

const route = createRoute({
  method: "post",
  path: "/v1/mor/webhook",
  operationId: "morWebhook",
  tags: ["payments"],
  summary: "Payment notifications from the merchant-of-record provider (signed)",
  description:
    "Called by the provider, not by clients. The Paddle-Signature header (ts=<unix seconds>;h1=<HMAC-SHA256 " +
    "hex of `<ts>:<raw body>` keyed with the webhook secret>) is checked over the exact raw body, with a " +
    "timestamp tolerance (MOR_WEBHOOK_TOLERANCE_SECONDS, 5 s by default); a missing, bad or stale signature " +
    "is a 400 and changes nothing. Events are applied once per provider event id.",
  request: {
    headers: z.object({
      "paddle-signature": z.string().optional().openapi({ example: "ts=1671552777;h1=eb4d0dc8…" }),
    }),
    body: { required: true, content: { "application/json": { schema: WebhookEventSchema } } },
  },
  responses: {
    200: {
      description: "The event was verified and recorded (or was a replay).",
      content: { "application/json": { schema: WebhookResultSchema } },
    },
    ...errorResponses(400, 429, 500),
  },
});

export function registerMorWebhook(app: OpenAPIHono<AppEnv>, subscription: SubscriptionService): void {
  app.openapi(route, async (c) => {
    // The signature covers the exact bytes received: read the raw text (Hono caches it; the JSON validator
    // parsed the same text), never a re-serialisation.
    const rawBody = await c.req.text();
    const result = await subscription.handleWebhook(rawBody, (name) => c.req.header(name), c.get("log"));
    return c.json(result, 200);
  });
}
