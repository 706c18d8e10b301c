import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { errorResponses } from "../../errors.ts";

const FaucetRequestSchema = z
  .object({
    endpoint: z.string().min(3).max(100).openapi({
      example: "GET /v1/tenders/:id",
      description: "A priced endpoint name as GET /v1/pricing lists it.",
    }),
  })
  .openapi("DevFaucetRequest");

const FaucetResponseSchema = z
  .object({
    token: z.string().openapi({ description: "Send as header X-PAYMENT on one call to `endpoint`." }),
    proof: z
      .string()
      .openapi({ description: "SHA-256 of the token: the id under which the service stores it." }),
    endpoint: z.string(),
    amount: z.string().openapi({ example: "0.02", description: "Price in USD the token pays." }),
    expires_at: z.iso.datetime(),
  })
  .openapi("DevFaucetToken");

const route = createRoute({
  method: "post",
  path: "/v1/dev-faucet",
  operationId: "devFaucet",
  tags: ["payments"],
  summary: "Issue a single-use development payment token (dev payments mode only)",
  description:
    "Only present when the service runs with PAYMENTS_MODE=dev; absent (404) in production. No money moves.",
  request: { body: { required: true, content: { "application/json": { schema: FaucetRequestSchema } } } },
  responses: {
    200: {
      description: "A token for one call to the endpoint.",
      content: { "application/json": { schema: FaucetResponseSchema } },
    },
    ...errorResponses(400, 429, 500),
  },
});

export function registerDevFaucet(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const { endpoint } = c.req.valid("json");
    return c.json(await deps.payments.issueDevToken(endpoint.trim()), 200);
  });
}
