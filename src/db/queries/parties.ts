import type { Queryable } from "../client.ts";

/**
 * Companies and buyers as ingestion writes them. Batches go in as one JSON parameter expanded with
 * jsonb_to_recordset (one round trip per batch on both engines). Rows are sorted by the caller so that two
 * concurrent ingesters lock in the same order.
 */

export interface NewCompany {
  name: string;
  name_norm: string;
  nif: string | null;
  country: string | null;
  is_joint_venture: boolean;
}

/** Inserts companies keyed by NIF that do not exist yet; returns the id of every requested NIF. */
export async function ensureCompaniesByNif(
  db: Queryable,
  rows: readonly NewCompany[],
): Promise<Map<string, number>> {
  if (rows.length === 0) {
    return new Map();
  }
  await db.query(
    `INSERT INTO companies (name, name_norm, nif, country, is_joint_venture)
     SELECT r.name, r.name_norm, r.nif, r.country, r.is_joint_venture
       FROM jsonb_to_recordset($1::jsonb) AS r(name text, name_norm text, nif text, country text, is_joint_venture boolean)
     ON CONFLICT (nif) WHERE nif IS NOT NULL DO NOTHING`,
    [JSON.stringify(rows)],
  );
  const { rows: found } = await db.query<{ id: number; nif: string }>(
    "SELECT id, nif FROM companies WHERE nif = ANY($1::text[])",
    [rows.map((r) => r.nif)],
  );
  return new Map(found.map((r) => [r.nif, r.id]));
}

/** Same for parties without a valid tax id, keyed by exact normalized name among companies without NIF. */
export async function ensureCompaniesByName(
  db: Queryable,
  rows: readonly NewCompany[],
): Promise<Map<string, number>> {
  if (rows.length === 0) {
    return new Map();
  }
  await db.query(
    `INSERT INTO companies (name, name_norm, nif, country, is_joint_venture)
     SELECT r.name, r.name_norm, NULL, r.country, r.is_joint_venture
       FROM jsonb_to_recordset($1::jsonb) AS r(name text, name_norm text, country text, is_joint_venture boolean)
     ON CONFLICT (name_norm) WHERE nif IS NULL DO NOTHING`,
    [JSON.stringify(rows)],
  );
  const { rows: found } = await db.query<{ id: number; name_norm: string }>(
    "SELECT id, name_norm FROM companies WHERE nif IS NULL AND name_norm = ANY($1::text[])",
    [rows.map((r) => r.name_norm)],
  );
  return new Map(found.map((r) => [r.name_norm, r.id]));
}

export async function addCompanyAliases(
  db: Queryable,
  rows: readonly { company_id: number; alias: string }[],
): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO company_aliases (company_id, alias)
       SELECT r.company_id, r.alias FROM jsonb_to_recordset($1::jsonb) AS r(company_id bigint, alias text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}

export async function addCompanyIdentifiers(
  db: Queryable,
  rows: readonly { company_id: number; scheme: string; value: string }[],
): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO company_identifiers (company_id, scheme, value)
       SELECT r.company_id, r.scheme, r.value
         FROM jsonb_to_recordset($1::jsonb) AS r(company_id bigint, scheme text, value text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}

/** A party once seen as a joint venture stays one (the flag only ever turns on). */
export async function markJointVentures(db: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) {
    await db.query(
      "UPDATE companies SET is_joint_venture = true WHERE id = ANY($1::bigint[]) AND NOT is_joint_venture",
      [ids],
    );
  }
}

export async function linkCompanyMembers(
  db: Queryable,
  rows: readonly { group_id: number; member_id: number }[],
): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO company_members (group_id, member_id)
       SELECT r.group_id, r.member_id FROM jsonb_to_recordset($1::jsonb) AS r(group_id bigint, member_id bigint)
       WHERE r.group_id <> r.member_id
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}

export interface BuyerIdentifier {
  scheme: string;
  value: string;
}

/** Every (scheme, value) → buyer mapping that exists among the given identifiers. */
export async function findBuyerIdentifiers(
  db: Queryable,
  identifiers: readonly BuyerIdentifier[],
): Promise<Map<string, number>> {
  if (identifiers.length === 0) {
    return new Map();
  }
  const { rows } = await db.query<{ scheme: string; value: string; buyer_id: number }>(
    `SELECT i.scheme, i.value, i.buyer_id
       FROM unnest($1::text[], $2::text[]) AS wanted(scheme, value)
       JOIN buyer_identifiers i ON i.scheme = wanted.scheme AND i.value = wanted.value`,
    [identifiers.map((i) => i.scheme), identifiers.map((i) => i.value)],
  );
  return new Map(rows.map((r) => [`${r.scheme}:${r.value}`, r.buyer_id]));
}

export interface BuyerDetails {
  name: string;
  name_norm: string;
  nif: string | null;
  dir3: string[];
  platform_id: string | null;
  country: string | null;
  nuts: string | null;
  org_type: string | null;
}

export async function insertBuyer(db: Queryable, buyer: BuyerDetails): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO buyers (name, name_norm, nif, dir3, platform_id, country, nuts, org_type)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      buyer.name,
      buyer.name_norm,
      buyer.nif,
      buyer.dir3,
      buyer.platform_id,
      buyer.country,
      buyer.nuts,
      buyer.org_type,
    ],
  );
  const id = rows[0]?.id;
  if (id === undefined) {
    throw new Error("insert into buyers returned no id");
  }
  return id;
}

/**
 * Completes known buyers with what newer notices say: fills fields that were unknown and adds DIR3 codes; a NIF
 * is only set when no other buyer holds it. Known values are never overwritten by nulls.
 */
export async function completeBuyers(
  db: Queryable,
  rows: readonly (BuyerDetails & { id: number })[],
): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  await db.query(
    `UPDATE buyers b SET
        nif = coalesce(b.nif, CASE WHEN NOT EXISTS (SELECT 1 FROM buyers o WHERE o.nif = r.nif) THEN r.nif END),
        dir3 = ARRAY(SELECT DISTINCT d FROM unnest(b.dir3 || r.dir3) AS d ORDER BY d),
        platform_id = coalesce(b.platform_id, r.platform_id),
        country = coalesce(b.country, r.country),
        nuts = coalesce(b.nuts, r.nuts),
        org_type = coalesce(b.org_type, r.org_type),
        updated_at = now()
       FROM jsonb_to_recordset($1::jsonb)
            AS r(id bigint, nif text, dir3 text[], platform_id text, country text, nuts text, org_type text)
      WHERE b.id = r.id
        AND (b.nif IS NULL AND r.nif IS NOT NULL OR NOT b.dir3 @> r.dir3
             OR b.platform_id IS NULL AND r.platform_id IS NOT NULL OR b.country IS NULL AND r.country IS NOT NULL
             OR b.nuts IS NULL AND r.nuts IS NOT NULL OR b.org_type IS NULL AND r.org_type IS NOT NULL)`,
    [JSON.stringify(rows)],
  );
}

/** Identifiers of many buyers in one statement. */
export async function addBuyerIdentifierRows(
  db: Queryable,
  rows: readonly { buyer_id: number; scheme: string; value: string }[],
): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO buyer_identifiers (buyer_id, scheme, value)
       SELECT r.buyer_id, r.scheme, r.value FROM jsonb_to_recordset($1::jsonb) AS r(buyer_id bigint, scheme text, value text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}

export async function addBuyerAliases(
  db: Queryable,
  rows: readonly { buyer_id: number; alias: string }[],
): Promise<void> {
  if (rows.length > 0) {
    await db.query(
      `INSERT INTO buyer_aliases (buyer_id, alias)
       SELECT r.buyer_id, r.alias FROM jsonb_to_recordset($1::jsonb) AS r(buyer_id bigint, alias text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}
