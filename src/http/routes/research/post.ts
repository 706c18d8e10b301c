import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { researchEnvelope } from "../../../domain/envelope.ts";
import { ResearchInputSchema, researchBrief } from "../../../domain/research/research-brief.ts";
import { CONTRACT_TYPES, PROCEDURE_TYPES, TENDER_STATUSES } from "../../../domain/vocabulary.ts";
import { domainContext, type HttpDeps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { ConfidenceSchema, envelopeSchema, ProvenanceSchema, paidCall } from "../../envelope.ts";
import { errorResponses } from "../../errors.ts";
import { pricedOperation, servePaid } from "../../paid.ts";
import { DateSchema, PartyRefSchema } from "../../schemas/common.ts";
import { PartySchema } from "../companies/schema.ts";

const ENDPOINT = "POST /v1/research";

// `.meta({id})` names the component (see http/schemas/common.ts on why not `.openapi`).
export const ResearchRequestSchema = ResearchInputSchema.meta({ id: "ResearchRequest" });

const Finding = {
  confidence: ConfidenceSchema.openapi({ description: "Evidence strength of this finding (see rules)." }),
  evidence: z.array(ProvenanceSchema).openapi({ description: "The upstream notices the finding rests on." }),
};

export const ResearchBriefSchema = z
  .object({
    query: z.string(),
    as_of: DateSchema.openapi({ description: "The day (Madrid) the brief was built for." }),
    confidence: ConfidenceSchema.openapi({
      description: "How much evidence was found (rule in rules.confidence).",
    }),
    summary: z.string().openapi({
      description: "Sentences built from the counts, names and dates of the findings; no language model.",
    }),
    counts: z.object({
      matching_tenders: z.number().int(),
      matching_tenders_exact: z.boolean(),
      matching_awards: z.number().int(),
      matching_awards_exact: z.boolean(),
      open_renewal_signals: z.number().int(),
      buyers_named: z.number().int(),
      companies_named: z.number().int(),
    }),
    findings: z.object({
      recent_tenders: z.array(
        z.object({
          tender_id: z.number().int(),
          title: z.string().nullable(),
          buyer: PartyRefSchema,
          publication_date: DateSchema.nullable(),
          deadline: z.iso.datetime().nullable(),
          cpv_main: z.string().nullable(),
          estimated_value: z.number().nullable(),
          currency: z.string().nullable(),
          procedure_type: z.enum(PROCEDURE_TYPES).nullable(),
          contract_type: z.enum(CONTRACT_TYPES).nullable(),
          status: z.enum(TENDER_STATUSES).nullable().openapi({
            description: "As in the Tender: one vocabulary for both sources (docs/vocabulary.md).",
          }),
          matched_in: z.enum(["title", "description", "buyer_name"]),
          ...Finding,
        }),
      ),
      renewal_signals: z.array(
        z.object({
          signal_id: z.number().int(),
          signal_type: z.enum(["duration_expiry", "framework_expiry", "recurrence"]),
          cpv: z.string(),
          buyer: PartySchema,
          window_start: DateSchema,
          window_end: DateSchema,
          contract_title: z.string().nullable(),
          ...Finding,
        }),
      ),
      company_opportunities: z.array(
        z.object({
          company: PartySchema,
          matching_awards: z.number().int(),
          last_award_date: DateSchema.nullable(),
          cpv_divisions: z.array(z.string()),
          open_opportunities: z.number().int(),
          ...Finding,
        }),
      ),
      active_buyers: z.array(
        z.object({
          buyer: PartySchema,
          tenders_last_12_months: z.number().int(),
          last_publication_date: DateSchema,
          open_renewal_signals: z.number().int(),
          ...Finding,
        }),
      ),
    }),
    rules: z.object({
      matching: z.string(),
      confidence: z.string(),
      finding_confidence: z.string(),
      limit: z.string(),
    }),
  })
  // No hand-written example: the operation's examples are real answers (src/http/openapi-examples.json).
  .openapi("ResearchBrief");

const route = createRoute({
  method: "post",
  path: "/v1/research",
  operationId: "research",
  tags: ["signals"],
  summary: "Deterministic research brief for a topic",
  ...pricedOperation(ENDPOINT),
  request: {
    body: { required: true, content: { "application/json": { schema: ResearchRequestSchema } } },
  },
  responses: {
    200: {
      description:
        "The brief: a confidence label, a summary, counts, and findings in four groups (recent tenders, renewal " +
        "signals, companies with opportunities, active buyers), each with its evidence and an evidence-strength " +
        "label. The same data and day give the same bytes. meta.provenance lists every notice cited.",
      content: { "application/json": { schema: envelopeSchema(ResearchBriefSchema) } },
    },
    ...errorResponses(400, 402, 429, 500),
  },
});

export function registerResearch(app: OpenAPIHono<AppEnv>, deps: HttpDeps): void {
  app.openapi(route, async (c) => {
    const input = c.req.valid("json");
    const { value, priceCents } = await servePaid(c, deps, ENDPOINT, () =>
      researchBrief({ ctx: domainContext(c, deps), input }),
    );
    return c.json(researchEnvelope(value, paidCall(c, priceCents)), 200);
  });
}
