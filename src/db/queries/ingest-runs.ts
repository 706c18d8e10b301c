import type { Queryable } from "../client.ts";

export interface RunCounters {
  pages: number;
  entriesNew: number;
  entriesUpdated: number;
  entriesUnchanged: number;
  errors: number;
}

export async function startIngestRun(
  db: Queryable,
  run: { source: string; feed: string | null; location: string; startedAt: Date },
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    "INSERT INTO ingest_runs (source, feed, location, started_at) VALUES ($1, $2, $3, $4) RETURNING id",
    [run.source, run.feed, run.location, run.startedAt],
  );
  const id = rows[0]?.id;
  if (id === undefined) {
    throw new Error("insert into ingest_runs returned no id");
  }
  return id;
}

/** Adds one committed batch's counts to the run, inside the batch's own transaction. */
export async function addToIngestRun(db: Queryable, runId: number, delta: RunCounters): Promise<void> {
  await db.query(
    `UPDATE ingest_runs SET pages = pages + $2, entries_new = entries_new + $3, entries_updated = entries_updated + $4,
            entries_unchanged = entries_unchanged + $5, errors = errors + $6
      WHERE id = $1`,
    [runId, delta.pages, delta.entriesNew, delta.entriesUpdated, delta.entriesUnchanged, delta.errors],
  );
}

export async function finishIngestRun(
  db: Queryable,
  runId: number,
  outcome: { status: "succeeded" | "failed"; finishedAt: Date; message: string | null },
): Promise<void> {
  await db.query("UPDATE ingest_runs SET status = $2, finished_at = $3, message = $4 WHERE id = $1", [
    runId,
    outcome.status,
    outcome.finishedAt,
    outcome.message,
  ]);
}

export async function insertIngestErrors(
  db: Queryable,
  runId: number,
  errors: readonly { entryRef: string | null; reason: string }[],
): Promise<void> {
  if (errors.length > 0) {
    await db.query(
      `INSERT INTO ingest_errors (run_id, entry_ref, reason)
       SELECT $1, r.entry_ref, r.reason FROM jsonb_to_recordset($2::jsonb) AS r(entry_ref text, reason text)`,
      [runId, JSON.stringify(errors.map((e) => ({ entry_ref: e.entryRef, reason: e.reason })))],
    );
  }
}

export interface Checkpoint {
  cursorUpdated: Date | null;
  cursorRef: string | null;
}

export async function getCheckpoint(db: Queryable, feed: string): Promise<Checkpoint | undefined> {
  const { rows } = await db.query<{ cursor_updated: Date | null; cursor_ref: string | null }>(
    "SELECT cursor_updated, cursor_ref FROM ingest_checkpoints WHERE feed = $1",
    [feed],
  );
  const row = rows[0];
  return row ? { cursorUpdated: row.cursor_updated, cursorRef: row.cursor_ref } : undefined;
}

/** Moves the checkpoint forward only: an older cursor never replaces a newer one. */
export async function advanceCheckpoint(
  db: Queryable,
  feed: string,
  cursor: { updated: string; ref: string | null; runId: number },
): Promise<void> {
  await db.query(
    `INSERT INTO ingest_checkpoints (feed, cursor_updated, cursor_ref, run_id, updated_at)
     VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (feed) DO UPDATE SET cursor_updated = EXCLUDED.cursor_updated, cursor_ref = EXCLUDED.cursor_ref,
       run_id = EXCLUDED.run_id, updated_at = now()
     WHERE ingest_checkpoints.cursor_updated IS NULL OR ingest_checkpoints.cursor_updated < EXCLUDED.cursor_updated`,
    [feed, cursor.updated, cursor.ref, cursor.runId],
  );
}
