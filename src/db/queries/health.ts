import type { Queryable } from "../client.ts";

export interface SourceIngestState {
  source: "placsp" | "ted";
  last_success_at: Date | null;
  last_error_at: Date | null;
  last_error: string | null;
}

/**
 * One round trip: the database answers, and per source the end of the last successful ingest run and the
 * newest failed one (ingest_runs_source_idx serves each subquery).
 */
export async function pingDatabase(db: Queryable): Promise<{ ok: boolean; sources: SourceIngestState[] }> {
  const { rows } = await db.query<SourceIngestState>(
    `SELECT s.source,
            (SELECT max(r.finished_at) FROM ingest_runs r WHERE r.source = s.source AND r.status = 'succeeded')
              AS last_success_at,
            f.finished_at AS last_error_at, f.message AS last_error
       FROM (VALUES ('placsp'), ('ted')) AS s(source)
       LEFT JOIN LATERAL (
         SELECT coalesce(r.finished_at, r.started_at) AS finished_at, r.message
           FROM ingest_runs r
          WHERE r.source = s.source AND r.status = 'failed'
          ORDER BY r.started_at DESC, r.id DESC
          LIMIT 1
       ) f ON true
      ORDER BY s.source`,
  );
  return { ok: rows.length === 2, sources: rows };
}
