-- Ingestion bookkeeping: one row per run, a checkpoint per feed that only advances after a page commits,
-- and per-entry errors that never stop the rest of a page.
CREATE TABLE ingest_runs (
  id                bigserial PRIMARY KEY,
  source            text NOT NULL,
  feed              text,
  location          text,
  status            text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
  started_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  pages             integer NOT NULL DEFAULT 0,
  entries_new       integer NOT NULL DEFAULT 0,
  entries_updated   integer NOT NULL DEFAULT 0,
  entries_unchanged integer NOT NULL DEFAULT 0,
  errors            integer NOT NULL DEFAULT 0,
  message           text
);
CREATE INDEX ingest_runs_source_idx ON ingest_runs (source, started_at DESC);

CREATE TABLE ingest_checkpoints (
  feed           text PRIMARY KEY,
  cursor_updated timestamptz,
  cursor_ref     text,
  run_id         bigint REFERENCES ingest_runs (id),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingest_errors (
  id         bigserial PRIMARY KEY,
  run_id     bigint NOT NULL REFERENCES ingest_runs (id) ON DELETE CASCADE,
  entry_ref  text,
  reason     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ingest_errors_run_idx ON ingest_errors (run_id);
