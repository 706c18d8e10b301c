import type { Queryable } from "../client.ts";

export async function pingDatabase(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ ok: number }>("SELECT 1 AS ok");
  return rows[0]?.ok === 1;
}
