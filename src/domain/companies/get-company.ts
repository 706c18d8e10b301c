import type { z } from "zod";
import { listAwardNotices } from "../../db/queries/awards.ts";
import { type CompanyIdentifierRow, findCompanyById } from "../../db/queries/companies.ts";
import { readCompanyStats } from "../../db/queries/stats.ts";
import { noticesOf } from "../awards/award-with-tender.ts";
import { valueSumCaveats } from "../caveats.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { IdInputSchema } from "../params.ts";
import type { PartyRef } from "../party.ts";
import type { Provenance } from "../provenance.ts";
import { companyNotFound } from "./not-found.ts";

export type IdentifierScheme = "nif" | "ted" | "placsp";

export interface CompanyIdentifier {
  scheme: IdentifierScheme;
  value: string;
}

export interface CompanyCpv {
  code: string;
  label_en: string | null;
  label_es: string | null;
  wins: number;
  total_value: number | null;
}

export interface CompanyBuyer {
  id: number;
  name: string;
  wins: number;
  total_value: number | null;
}

export interface Company {
  id: number;
  source_ref: string | null;
  name: string;
  country: string | null;
  nif: string | null;
  aliases: string[];
  identifiers: CompanyIdentifier[];
  stats: {
    wins: number;
    total_awarded_value: number | null;
    top_cpvs: CompanyCpv[];
    top_buyers: CompanyBuyer[];
  };
  /** Beyond the spec: a joint venture (UTE) is a company of its own, linked to its members. */
  is_joint_venture: boolean;
  members: PartyRef[];
  member_of: PartyRef[];
}

export interface CompanyResult {
  company: Company;
  provenance: Provenance[];
  caveats: string[];
}

/** How many of the newest awards name their notices in provenance (the full list: company awards). */
export const COMPANY_PROVENANCE_AWARDS = 50;

const SCHEMES: ReadonlySet<string> = new Set<IdentifierScheme>(["nif", "ted", "placsp"]);

function isServedIdentifier(row: CompanyIdentifierRow): row is CompanyIdentifier {
  return SCHEMES.has(row.scheme);
}

/** Input: the parameters of GET /v1/companies/{id} and the arguments of the MCP tool get_company. */
export const GetCompanyInputSchema = IdInputSchema;

/**
 * A company profile: its names and identifiers, joint-venture links and win aggregates. The aggregates are
 * materialized after each ingest run (analytics/refresh-stats.ts); a company without wins has zero wins, a
 * null total and empty top lists. Provenance names the notices of its newest 50 awards.
 */
export async function getCompany({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: z.output<typeof GetCompanyInputSchema>;
}): Promise<CompanyResult> {
  const db = readerOf(ctx);
  const row = await findCompanyById(db, input.id);
  if (!row) {
    throw companyNotFound(input.id);
  }
  const [stats, notices] = await Promise.all([
    readCompanyStats(db, row.id),
    listAwardNotices(db, { winner: row.id }, COMPANY_PROVENANCE_AWARDS),
  ]);
  // Rebuilt field by field: jsonb objects come back with their keys in jsonb's storage order.
  const identifiers = row.identifiers
    .filter(isServedIdentifier)
    .map((i): CompanyIdentifier => ({ scheme: i.scheme, value: i.value }));
  const sourceRef = identifiers.find((i) => i.scheme !== "nif")?.value ?? null;
  return {
    company: {
      id: row.id,
      source_ref: sourceRef,
      name: row.name,
      country: row.country,
      nif: row.nif,
      aliases: row.aliases,
      identifiers,
      stats: {
        wins: stats?.wins ?? 0,
        total_awarded_value: stats?.total_value ?? null,
        top_cpvs: (stats?.top_cpvs ?? []).map((c) => ({
          code: c.code,
          label_en: c.label_en,
          label_es: c.label_es,
          wins: c.wins,
          total_value: c.total_value,
        })),
        top_buyers: (stats?.top_buyers ?? []).map((b) => ({
          id: b.id,
          name: b.name,
          wins: b.wins,
          total_value: b.total_value,
        })),
      },
      is_joint_venture: row.is_joint_venture,
      members: row.members.map((m) => ({ id: m.id, name: m.name })),
      member_of: row.member_of.map((g) => ({ id: g.id, name: g.name })),
    },
    provenance: noticesOf(notices),
    caveats: valueSumCaveats(
      "total_awarded_value and every total_value",
      stats?.ceilings_excluded ?? 0,
      stats?.non_eur_excluded ?? 0,
    ),
  };
}
