-- Renewal signals, version 1 of the basis (docs/signals.md): the evidence of a re-tender forecast, computed by
-- analytics/renewals.ts (full recompute or per buyer after an ingest run), scored by the backtest.

-- 1. Contract extensions and options as announced (PLACSP cac:ContractExtension, TED BT-54/57/58). They make
-- a contract's end uncertain: the basis carries their text and, when the notice gives it, the latest end.
ALTER TABLE awards ADD COLUMN extension_text text;
-- The announced extension period in months (OptionValidityPeriod / Renewal period duration), when structured.
ALTER TABLE awards ADD COLUMN extension_months numeric(10, 2);
-- The latest end date including extensions, when the notice publishes it.
ALTER TABLE awards ADD COLUMN extension_end_date date;

-- 2. Signals: the stable id is derived from basis_key, so recomputation keeps ids. The columns the endpoint
-- filters and orders on are denormalized from the basis; basis holds the full evidence as served.
DROP TABLE renewal_signals;
CREATE TABLE renewal_signals (
  id             bigint PRIMARY KEY,
  basis_key      text NOT NULL UNIQUE,
  signal_type    text NOT NULL CHECK (signal_type IN ('duration_expiry', 'framework_expiry', 'recurrence')),
  -- The signal's CPV (the award's for expiry signals, the division's XX000000 code for recurrence) and its
  -- two-digit division, the unit of re-tender matching and of incremental recomputation.
  cpv            text NOT NULL,
  cpv_division   text NOT NULL CHECK (cpv_division ~ '^[0-9]{2}$'),
  buyer_id       bigint NOT NULL REFERENCES buyers (id),
  -- The basis award and its tender (the newest award of a recurrence).
  tender_id      bigint NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  award_id       bigint NOT NULL REFERENCES awards (id) ON DELETE CASCADE,
  -- The date the re-tender is expected near: the contract's end, or last award + median interval.
  predicted_date date NOT NULL,
  window_start   date NOT NULL,
  window_end     date NOT NULL,
  confidence     text NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),
  confidence_rank smallint GENERATED ALWAYS AS (
                   CASE confidence WHEN 'high' THEN 3 WHEN 'medium' THEN 2 ELSE 1 END) STORED,
  -- The tender of the same buyer and division published after the basis award and no later than the window's
  -- end: the forecast has come true and is no longer open.
  retendered_by  bigint REFERENCES tenders (id) ON DELETE SET NULL,
  -- The tenders of every award the basis uses, ascending: the provenance served with the signal.
  evidence_tender_ids bigint[] NOT NULL,
  basis          jsonb NOT NULL,
  CHECK (window_start <= window_end)
);
-- The endpoint's order: window start, confidence (high first), id; open signals only unless asked.
CREATE INDEX renewal_signals_window_idx ON renewal_signals (window_start, confidence_rank DESC, id)
  WHERE retendered_by IS NULL;
CREATE INDEX renewal_signals_all_window_idx ON renewal_signals (window_start, confidence_rank DESC, id);
CREATE INDEX renewal_signals_buyer_idx ON renewal_signals (buyer_id, cpv_division);
CREATE INDEX renewal_signals_cpv_idx ON renewal_signals (cpv text_pattern_ops);
CREATE INDEX renewal_signals_award_idx ON renewal_signals (award_id);
CREATE INDEX renewal_signals_tender_idx ON renewal_signals (tender_id);
CREATE INDEX renewal_signals_retender_idx ON renewal_signals (retendered_by);

-- 3. Buyers whose signals must be recomputed: marked when their awards or tenders change (any writer), taken
-- by the recompute that follows every ingest run.
CREATE TABLE renewal_signals_dirty (
  buyer_id bigint PRIMARY KEY
);

CREATE OR REPLACE FUNCTION renewal_signals_mark_buyers() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty (buyer_id)
      SELECT DISTINCT buyer_id FROM new_rows WHERE buyer_id IS NOT NULL
      ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty (buyer_id)
      SELECT DISTINCT buyer_id FROM old_rows WHERE buyer_id IS NOT NULL
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- Awards carry their tender's buyer (migration 0009), but a writer that leaves it null still marks the
-- tender's buyer. (A tender deleted with its awards marks its buyer through the tenders trigger.)
CREATE OR REPLACE FUNCTION renewal_signals_mark_award_buyers() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty (buyer_id)
      SELECT DISTINCT coalesce(n.buyer_id, t.buyer_id) FROM new_rows n LEFT JOIN tenders t ON t.id = n.tender_id
       WHERE coalesce(n.buyer_id, t.buyer_id) IS NOT NULL
      ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO renewal_signals_dirty (buyer_id)
      SELECT DISTINCT coalesce(o.buyer_id, t.buyer_id) FROM old_rows o LEFT JOIN tenders t ON t.id = o.tender_id
       WHERE coalesce(o.buyer_id, t.buyer_id) IS NOT NULL
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER tenders_signals_ins AFTER INSERT ON tenders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_buyers();
CREATE TRIGGER tenders_signals_upd AFTER UPDATE ON tenders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_buyers();
CREATE TRIGGER tenders_signals_del AFTER DELETE ON tenders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_buyers();
CREATE TRIGGER awards_signals_ins AFTER INSERT ON awards
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_award_buyers();
CREATE TRIGGER awards_signals_upd AFTER UPDATE ON awards
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_award_buyers();
CREATE TRIGGER awards_signals_del AFTER DELETE ON awards
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION renewal_signals_mark_award_buyers();

-- 4. Backtests: one row per run, the scored table as served in GET /v1/renewals meta.backtest.
CREATE TABLE renewal_backtests (
  id         bigserial PRIMARY KEY,
  run_at     timestamptz NOT NULL,
  as_of      date[] NOT NULL,
  result     jsonb NOT NULL
);
