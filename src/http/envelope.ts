import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { buildEnvelope, type MetaInput, type PaidCall } from "../domain/envelope.ts";
import type { AppEnv } from "./env.ts";

export const ProvenanceSchema = z
  .object({
    source: z.enum(["ted", "placsp"]),
    source_ref: z.string(),
    url: z.url().optional(),
  })
  .openapi("Provenance");

export const ConfidenceSchema = z.enum(["low", "medium", "high"]);

export const MetaSchema = z
  .object({
    request_id: z.uuid(),
    price_usd: z
      .string()
      .openapi({ example: "0.02", description: "Decimal US dollars charged for this call." }),
    paid: z.boolean(),
    provenance: z.array(ProvenanceSchema).openapi({ description: "Upstream notices the data comes from." }),
    page: z.number().int().optional(),
    total: z.number().int().optional().openapi({
      description:
        "Matching rows. On GET /v1/search exact up to 10,000; when more match it is 10,000 and total_exact is false.",
    }),
    total_exact: z.boolean().optional().openapi({
      description: "GET /v1/search only (always present there): whether total is the exact count of matches.",
    }),
    caveats: z.array(z.string()).optional(),
    score_explanation: z.string().optional(),
    methodology: z.string().optional(),
    confidence_scale: z.array(ConfidenceSchema).optional(),
    generated_at: z.iso.datetime().optional(),
  })
  .openapi("Meta");

export type Meta = z.infer<typeof MetaSchema>;

/** `{data, meta}` response schema for a data schema. */
export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ data, meta: MetaSchema });
}

/** Builds the envelope every data endpoint answers with (domain/envelope.ts), for this request. */
export function envelope<T>(c: Context<AppEnv>, data: T, input: MetaInput): { data: T; meta: Meta } {
  return buildEnvelope(c.get("requestId"), data, input);
}

/** The paid call a priced route answers: its request id and the price charged. */
export function paidCall(c: Context<AppEnv>, priceCents: number): PaidCall {
  return { requestId: c.get("requestId"), priceCents };
}
