-- Renewal (re-tender) signals: a deterministic heuristic recomputed after ingestion. The id is derived from
-- the basis key, so the same evidence always yields the same id across recomputations.
CREATE TABLE renewal_signals (
  id           bigint PRIMARY KEY,
  basis_key    text NOT NULL UNIQUE,
  signal_type  text NOT NULL CHECK (signal_type IN ('duration_expiry', 'framework_expiry', 'recurrence')),
  cpv          text,
  buyer_id     bigint REFERENCES buyers (id),
  tender_id    bigint REFERENCES tenders (id) ON DELETE CASCADE,
  award_id     bigint REFERENCES awards (id) ON DELETE CASCADE,
  window_start date NOT NULL,
  window_end   date NOT NULL,
  confidence   text NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),
  basis        jsonb NOT NULL,
  computed_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (window_start <= window_end)
);
CREATE INDEX renewal_signals_window_idx ON renewal_signals (window_start, id);
CREATE INDEX renewal_signals_buyer_idx ON renewal_signals (buyer_id);
