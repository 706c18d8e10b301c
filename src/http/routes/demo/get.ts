import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { getDemo } from "../../../domain/demo/get-demo.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { ConfidenceSchema, envelope, MetaSchema } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { DateSchema } from "../../schemas/common.ts";
import { ExpiryBasisSchema, RecurrenceBasisSchema } from "../renewals/schema.ts";

const SourceSchema = z.enum(["placsp", "ted"]);
const RefSchema = z.string().openapi({
  description:
    "The notice reference: PLACSP references carry a placsp: prefix; TED references are notice numbers.",
});

export const DemoSchema = z
  .object({
    note: z.string(),
    priced_endpoints: z.array(
      z.object({
        endpoint: z.string().openapi({ example: "GET /v1/tenders/:id" }),
        price_usd: z.string().openapi({ example: "0.02" }),
      }),
    ),
    tender: z
      .object({
        sample: z.literal(true),
        title: z.string().nullable(),
        buyer: z.object({ name: z.string().nullable(), country: z.string().nullable() }),
        cpv_main: z.string().nullable(),
        estimated_value: z.number().nullable(),
        currency: z.string().nullable(),
        published_at: DateSchema,
        source: SourceSchema,
        source_ref: RefSchema,
        evidence: z.array(z.string()),
      })
      .nullable()
      .openapi({ description: "The most recently published tender; null when none is loaded." }),
    renewal: z
      .object({
        sample: z.literal(true),
        signal_type: z.enum(["duration_expiry", "framework_expiry", "recurrence"]),
        incumbent: z.string().nullable(),
        contract: z.object({ title: z.string().nullable(), end_date: DateSchema.nullable() }),
        confidence: ConfidenceSchema,
        basis: z.union([RecurrenceBasisSchema, ExpiryBasisSchema]),
        source: SourceSchema,
        source_ref: RefSchema,
        evidence: z.array(z.string()),
      })
      .nullable()
      .openapi({
        description:
          "The most recent open renewal signal: not re-tendered, window not over, the window started most " +
          "recently (a recurrence signal when one exists; else the soonest upcoming window); null when none.",
      }),
    source_metadata: z.array(
      z.object({
        source: SourceSchema,
        enabled: z
          .boolean()
          .openapi({ description: "Whether this deployment's schedule ingests the source." }),
        records: z
          .number()
          .int()
          .openapi({ description: "Tenders held from the source, as of the last ingest run." }),
        indexed_from: DateSchema.nullable(),
        indexed_to: DateSchema.nullable(),
        last_ingestion: z.iso
          .datetime()
          .nullable()
          .openapi({ description: "End of the last successful run." }),
      }),
    ),
  })
  .openapi("Demo");

const DemoMetaSchema = MetaSchema.extend({ generated_at: z.iso.datetime() }).openapi("DemoMeta");

const route = createRoute({
  method: "get",
  path: "/v1/demo",
  operationId: "getDemo",
  tags: ["discovery"],
  summary: "One labelled sample tender and one sample renewal signal (free)",
  responses: {
    200: {
      description:
        "Free sample rows labelled sample: true, the priced endpoints and what each source holds. On an empty " +
        "database tender and renewal are null and note says how to load data.",
      content: { "application/json": { schema: z.object({ data: DemoSchema, meta: DemoMetaSchema }) } },
    },
    ...errorResponses(429, 500),
  },
});

export function registerGetDemo(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const scheduled = deps.config.INGEST_SCHEDULE !== "off";
    const result = await getDemo({
      ctx: domainContext(c, deps),
      input: {
        servedRoutes: deps.servedRoutes(),
        enabled: { placsp: scheduled, ted: scheduled && deps.config.INGEST_TED_SCHEDULE !== "off" },
      },
    });
    // Free, yet "paid: true" as the spec's demo shows: nothing is owed for this answer.
    const body = envelope(c, result.demo, { priceCents: 0, paid: true, provenance: result.provenance });
    return c.json({ data: body.data, meta: { ...body.meta, generated_at: result.generatedAt } }, 200);
  });
}
