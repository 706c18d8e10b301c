import type { Queryable } from "../client.ts";

export interface BuyerRow {
  id: number;
  name: string;
  /** The PLACSP platform id (ID_PLATAFORMA / ID_OC_PLAT): the source's own reference of the buyer. */
  platform_id: string | null;
  country: string | null;
  nuts: string | null;
  org_type: string | null;
}

export async function findBuyerById(db: Queryable, id: number): Promise<BuyerRow | undefined> {
  const { rows } = await db.query<BuyerRow>(
    "SELECT b.id, b.name, b.platform_id, b.country, b.nuts, b.org_type FROM buyers b WHERE b.id = $1",
    [id],
  );
  return rows[0];
}
