import type { Queryable } from "../client.ts";

export interface CompanyIdentifierRow {
  scheme: string;
  value: string;
}

export interface CompanyPartyRow {
  id: number;
  name: string;
}

export interface CompanyRow {
  id: number;
  name: string;
  nif: string | null;
  country: string | null;
  is_joint_venture: boolean;
  /** Every raw name seen, in code-point order. */
  aliases: string[];
  /** Identifiers of the schemes the API serves (nif, ted, placsp), by scheme then value. */
  identifiers: CompanyIdentifierRow[];
  /** For a joint venture: its members, by id. */
  members: CompanyPartyRow[];
  /** The joint ventures this company is a member of, by id. */
  member_of: CompanyPartyRow[];
}

/**
 * A company with its names, identifiers and joint-venture links, in one round trip. Text is ordered with the
 * "C" collation so the order is the same on every engine and locale.
 */
export async function findCompanyById(db: Queryable, id: number): Promise<CompanyRow | undefined> {
  const { rows } = await db.query<CompanyRow>(
    `SELECT c.id, c.name, c.nif, c.country, c.is_joint_venture,
            ARRAY(SELECT a.alias FROM company_aliases a WHERE a.company_id = c.id
                   ORDER BY a.alias COLLATE "C") AS aliases,
            coalesce((SELECT jsonb_agg(jsonb_build_object('scheme', i.scheme, 'value', i.value)
                                       ORDER BY i.scheme COLLATE "C", i.value COLLATE "C")
                        FROM company_identifiers i
                       WHERE i.company_id = c.id AND i.scheme IN ('nif', 'ted', 'placsp')), '[]'::jsonb)
              AS identifiers,
            coalesce((SELECT jsonb_agg(jsonb_build_object('id', m.id, 'name', m.name) ORDER BY m.id)
                        FROM company_members cm JOIN companies m ON m.id = cm.member_id
                       WHERE cm.group_id = c.id), '[]'::jsonb) AS members,
            coalesce((SELECT jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name) ORDER BY g.id)
                        FROM company_members cm JOIN companies g ON g.id = cm.group_id
                       WHERE cm.member_id = c.id), '[]'::jsonb) AS member_of
       FROM companies c
      WHERE c.id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * How many awards a company won; undefined when there is no such company. Exact at all times: the
 * materialized count (company_stats.wins) when no change to the company's awards is pending a refresh, else a
 * live count. The materialized count costs nothing however many awards the company has; a live count over a
 * big winner whose index pages are not yet all-visible (right after an ingest) can cost tens of milliseconds.
 * Stats and pending marks change in one transaction, so one statement sees them consistent.
 */
export async function countCompanyAwards(db: Queryable, id: number): Promise<number | undefined> {
  const { rows } = await db.query<{ total: number }>(
    `SELECT (CASE WHEN s.wins IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM stats_dirty d WHERE d.kind = 'company' AND d.id = $1)
                  THEN s.wins
                  ELSE (SELECT count(*) FROM awards a WHERE a.winner_company_id = $1 AND NOT a.superseded)
                  END)::int AS total
       FROM companies c
       LEFT JOIN company_stats s ON s.company_id = c.id
      WHERE c.id = $1`,
    [id],
  );
  return rows[0]?.total;
}
