import { z } from "zod";
import { BuyerHistoryInputSchema, getBuyerHistory } from "../domain/buyers/get-buyer-history.ts";
import { GetCompanyInputSchema, getCompany } from "../domain/companies/get-company.ts";
import { CompanyAwardsInputSchema, listCompanyAwards } from "../domain/companies/list-company-awards.ts";
import {
  CompanyOpportunitiesInputSchema,
  listCompanyOpportunities,
} from "../domain/companies/list-company-opportunities.ts";
import type { DomainContext } from "../domain/context.ts";
import {
  buyerHistoryEnvelope,
  companyAwardsEnvelope,
  companyEnvelope,
  opportunitiesEnvelope,
  type PaidCall,
  renewalsEnvelope,
  researchEnvelope,
  searchEnvelope,
  tenderEnvelope,
} from "../domain/envelope.ts";
import { FAUCET_ENDPOINT } from "../domain/pricing/get-pricing.ts";
import { priceOf, priceUsd } from "../domain/pricing/price-table.ts";
import { listRenewals, RenewalsInputSchema } from "../domain/renewals/list-renewals.ts";
import { ResearchInputSchema, researchBrief } from "../domain/research/research-brief.ts";
import { SearchInputSchema, searchNotices } from "../domain/search/search-notices.ts";
import { GetTenderInputSchema, getTender } from "../domain/tenders/get-tender.ts";
import { BUNDLE_AMOUNTS } from "../payments/credits/credits.ts";
import { BundleAmountParam, ClientKeyParam } from "../payments/credits/inputs.ts";

/**
 * The MCP tools: the spec's eleven, each a thin wrapper over the same domain verb and price-table endpoint as
 * its REST route, so a tool and its route validate, charge and answer alike. Priced tools take the verb's
 * input schema plus `payment_token` and `client_key`.
 */

/** Payment arguments every priced tool accepts (SPEC.md, MCP). */
export const PaymentArgs = {
  payment_token: z
    .string()
    .min(1)
    .max(16_384)
    .optional()
    .meta({
      description:
        "Pays this one call: in x402 mode the base64 x402 payment payload (the PAYMENT-SIGNATURE value); in " +
        `dev mode a token from ${FAUCET_ENDPOINT}. Single-use. Omit it to be told the price and how to pay.`,
    }),
  client_key: ClientKeyParam.optional().meta({
    description:
      "A prepaid credit key (20 to 128 characters of A-Z a-z 0-9 . _ ~ -): when set, the call is debited from " +
      "its balance first. Buy credits with billing_purchase_credits.",
  }),
};

/** A priced tool: a verb behind the payment gate, answered with the verb's REST envelope. */
export interface PricedTool {
  kind: "priced";
  name: string;
  title: string;
  /** The price-table endpoint the call is charged as (the REST route of the same verb). */
  endpoint: string;
  description: string;
  input: z.ZodType<Record<string, unknown>>;
  /** The REST path of the same call: the x402 resource a payment is made for (a proof pays either surface). */
  resourcePath(args: Record<string, unknown>): string;
  run(ctx: DomainContext, args: Record<string, unknown>, call: PaidCall): Promise<unknown>;
  /** One line saying what came back, for clients that read only text. */
  summarize(envelope: unknown): string;
}

/** A tool that costs nothing (pricing, balance) or is priced by its arguments (the credit purchase). */
export interface OtherTool {
  kind: "free" | "purchase";
  name: string;
  title: string;
  description: string;
  input: z.ZodType<Record<string, unknown>>;
}

export type Tool = PricedTool | OtherTool;

function cost(endpoint: string): string {
  return `Costs ${priceUsd(priceOf(endpoint))} USD per call (as ${endpoint}).`;
}

const PAYING =
  "Without payment the result is {payment_required: true, price_usd, how_to_pay} (not an error): pay and call " +
  "again with payment_token, or pass client_key to pay from prepaid credits. Invalid arguments cost nothing; " +
  "nothing is charged when the record does not exist.";

/** The verb's own arguments with the payment arguments added (refinements such as from <= to are kept). */
function priced<T extends z.ZodObject>(schema: T) {
  return schema.safeExtend(PaymentArgs);
}

type Args = Record<string, unknown>;

// The verbs' inputs as the schemas parse them; the cast is safe because `input` parsed the arguments first.
const as = <T>(args: Args) => args as unknown as T;

function page(envelope: unknown): string {
  const meta = (envelope as { meta: { page?: number; total?: number } }).meta;
  return meta.total === undefined ? "" : ` (page ${meta.page ?? 1}, ${meta.total} in total)`;
}

function count(envelope: unknown, list: (data: never) => unknown[]): number {
  return list((envelope as { data: never }).data).length;
}

const TOOLS: Tool[] = [
  {
    kind: "priced",
    name: "search_tenders",
    title: "Search tenders, awards and contracts",
    endpoint: "GET /v1/search",
    description:
      "Full-text (Spanish, accent-insensitive) and structured search over Spanish (PLACSP) and EU (TED) " +
      "public-procurement notices: awards (default), tenders or signed contracts, filtered by CPV prefix, " +
      "buyer or company name fragment, NUTS region and date range. Use it to find notices or the ids the " +
      `other tools take. ${cost("GET /v1/search")} ${PAYING}`,
    input: priced(SearchInputSchema),
    resourcePath: () => "/v1/search",
    run: async (ctx, args, call) => searchEnvelope(await searchNotices({ ctx, input: as(args) }), call),
    summarize: (e) => `${count(e, (d: unknown[]) => d)} rows${page(e)}.`,
  },
  {
    kind: "priced",
    name: "get_tender",
    title: "Get a tender with its awards",
    endpoint: "GET /v1/tenders/:id",
    description:
      "One tender by id (from search_tenders): title, buyer, CPV codes, values, dates, status and every award, " +
      `with the upstream notice in meta.provenance. ${cost("GET /v1/tenders/:id")} ${PAYING}`,
    input: priced(GetTenderInputSchema),
    resourcePath: (args) => `/v1/tenders/${String(args.id)}`,
    run: async (ctx, args, call) => tenderEnvelope(await getTender({ ctx, input: as(args) }), call),
    summarize: (e) => `Tender ${String((e as { data: { id: number } }).data.id)}.`,
  },
  {
    kind: "priced",
    name: "get_company",
    title: "Get a company profile",
    endpoint: "GET /v1/companies/:id",
    description:
      "A company (a winner of public contracts) by id: names, identifiers, joint-venture links and win " +
      "aggregates (wins, total awarded value, top CPVs, top buyers). Use it to size up a competitor or partner. " +
      `${cost("GET /v1/companies/:id")} ${PAYING}`,
    input: priced(GetCompanyInputSchema),
    resourcePath: (args) => `/v1/companies/${String(args.id)}`,
    run: async (ctx, args, call) => companyEnvelope(await getCompany({ ctx, input: as(args) }), call),
    summarize: (e) => `Company ${String((e as { data: { id: number } }).data.id)}.`,
  },
  {
    kind: "priced",
    name: "get_company_awards",
    title: "List a company's awards",
    endpoint: "GET /v1/companies/:id/awards",
    description:
      "The awards a company won, newest first, with tender context; paged (size 1 to 100). Use it to see who " +
      `a company sells to and at what value. ${cost("GET /v1/companies/:id/awards")} ${PAYING}`,
    input: priced(CompanyAwardsInputSchema),
    resourcePath: (args) => `/v1/companies/${String(args.id)}/awards`,
    run: async (ctx, args, call) =>
      companyAwardsEnvelope(await listCompanyAwards({ ctx, input: as(args) }), call),
    summarize: (e) => `${count(e, (d: unknown[]) => d)} awards${page(e)}.`,
  },
  {
    kind: "priced",
    name: "get_company_opportunities",
    title: "Open tenders that fit a company",
    endpoint: "GET /v1/companies/:id/opportunities",
    description:
      "Open tenders (published within 90 days or with a deadline ahead) whose buyer or CPV matches a company's " +
      "award history, best first, each with a 0-100 score explained in meta.score_explanation. Use it to find " +
      `what a company could bid for next. ${cost("GET /v1/companies/:id/opportunities")} ${PAYING}`,
    input: priced(CompanyOpportunitiesInputSchema),
    resourcePath: (args) => `/v1/companies/${String(args.id)}/opportunities`,
    run: async (ctx, args, call) =>
      opportunitiesEnvelope(await listCompanyOpportunities({ ctx, input: as(args) }), call),
    summarize: (e) => `${count(e, (d: unknown[]) => d)} opportunities${page(e)}.`,
  },
  {
    kind: "priced",
    name: "get_buyer_history",
    title: "A buyer's award history",
    endpoint: "GET /v1/buyers/:id/history",
    description:
      "A contracting authority by id: its recent awards, supplier concentration (top-3 share by count and " +
      "value) and how often it buys per CPV division. Use it to judge an incumbent's hold on a buyer. " +
      `${cost("GET /v1/buyers/:id/history")} ${PAYING}`,
    input: priced(BuyerHistoryInputSchema),
    resourcePath: (args) => `/v1/buyers/${String(args.id)}/history`,
    run: async (ctx, args, call) =>
      buyerHistoryEnvelope(await getBuyerHistory({ ctx, input: as(args) }), call),
    summarize: (e) => `Buyer ${String((e as { data: { id: number } }).data.id)}.`,
  },
  {
    kind: "priced",
    name: "get_renewals",
    title: "Contracts about to be re-tendered",
    endpoint: "GET /v1/renewals",
    description:
      "Re-tender forecast signals (a deterministic heuristic, not probabilities) of competed procedures whose " +
      "window overlaps the next window_months (1 to 36): contract expiries, framework expiries and buyers' yearly " +
      "purchases, each with its evidence and the measured hit rate its confidence stands for, plus the latest " +
      "backtest (hit rate beside a random window of the same length). Lists medium and high by default " +
      "(min_confidence=low adds signals that showed no skill). Use it to see what will come up for tender. " +
      `${cost("GET /v1/renewals")} ${PAYING}`,
    // JSON has booleans: include_retendered takes true/false as well as REST's "true"/"false".
    input: priced(RenewalsInputSchema).safeExtend({
      include_retendered: z
        .union([z.boolean(), z.enum(["true", "false"])], { error: "true or false" })
        .default(false)
        .transform((value) => value === true || value === "true")
        .meta({
          description:
            "Also list signals whose re-tender has already been published (basis.retendered_by names it).",
        }),
    }),
    resourcePath: () => "/v1/renewals",
    run: async (ctx, args, call) => renewalsEnvelope(await listRenewals({ ctx, input: as(args) }), call),
    summarize: (e) => `${count(e, (d: { signals: unknown[] }) => d.signals)} signals${page(e)}.`,
  },
  {
    kind: "free",
    name: "get_pricing",
    title: "Prices and how to pay (free)",
    description:
      "Free. The price of every tool and REST endpoint, the payment methods (x402 USDC, prepaid credits, " +
      "subscription; a dev faucet in dev mode) and the payment flow. Call it first when unsure what a call costs.",
    input: z.object({
      payment_token: z
        .string()
        .max(16_384)
        .optional()
        .meta({ description: "Accepted for symmetry with the priced tools and ignored: this tool is free." }),
    }),
  },
  {
    kind: "priced",
    name: "research",
    title: "Research brief for a topic",
    endpoint: "POST /v1/research",
    description:
      "A deterministic brief for a topic (e.g. ciberseguridad): confidence, a summary, counts and findings " +
      "(recent tenders, open renewal signals, companies with opportunities, active buyers), each with its " +
      `evidence notices. Use it for a first overview of a market. ${cost("POST /v1/research")} ${PAYING}`,
    input: priced(ResearchInputSchema),
    resourcePath: () => "/v1/research",
    run: async (ctx, args, call) => researchEnvelope(await researchBrief({ ctx, input: as(args) }), call),
    summarize: (e) => `Brief: ${(e as { data: { summary: string } }).data.summary}`,
  },
  {
    kind: "free",
    name: "billing_get_balance",
    title: "Prepaid balance of a client key (free)",
    description:
      "Free. The prepaid credit account of a client key: balance in cents and USD, kind, trial calls and " +
      "subscription expiry. An error not_found when no account exists for the key (buy credits to create one).",
    input: z.object({ client_key: ClientKeyParam }),
  },
  {
    kind: "purchase",
    name: "billing_purchase_credits",
    title: "Buy prepaid credits",
    description:
      `Buys a bundle of ${BUNDLE_AMOUNTS.join(", ")} USD of prepaid credits for client_key (creating the ` +
      "account); the bundle costs exactly its amount, paid with payment_token (x402, or a dev-faucet token for " +
      "POST /v1/billing/credits/<amount> in dev mode), never from a balance. Credits never expire; afterwards " +
      "pass client_key to the priced tools. Without payment the result says the price and how to pay.",
    input: z.object({
      client_key: ClientKeyParam,
      amount: z
        .union([BundleAmountParam, z.number().int()])
        .transform((value) => String(value))
        .pipe(BundleAmountParam)
        .meta({
          description: `Bundle size in whole USD: ${BUNDLE_AMOUNTS.join(", ")} (a string or an integer).`,
        }),
      payment_token: PaymentArgs.payment_token,
    }),
  },
];

export function listTools(): readonly Tool[] {
  return TOOLS;
}

export function findTool(name: string): Tool | undefined {
  return TOOLS.find((tool) => tool.name === name);
}

/** Annotations (SPEC.md, MCP): read-only, non-destructive, idempotent; the purchase is not read-only. */
export function annotationsOf(tool: Tool) {
  return {
    title: tool.title,
    readOnlyHint: tool.kind !== "purchase",
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };
}

/** The tool's arguments as JSON Schema (what tools/list and the server card publish). */
export function inputJsonSchema(tool: Tool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  // MCP clients want a plain object schema; the draft URI is implied by the protocol.
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/** The price of a tool as published (USD string), or null for tools priced by their arguments. */
export function toolPriceUsd(tool: Tool): string | null {
  if (tool.kind === "priced") {
    return priceUsd(priceOf(tool.endpoint));
  }
  return tool.kind === "free" ? "0.00" : null;
}
