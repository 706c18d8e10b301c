-- One vocabulary across sources (issue 14, docs/vocabulary.md). The coded tender fields (notice_type,
-- procedure_type, contract_type, status) change from each source's codes to one common vocabulary; the codes as
-- published move to tenders.source_codes. Awards say whether start_date is the actual or the planned start.
--
-- Existing rows are migrated by this SQL (a data migration): no raw notice is stored (only its hash), so there
-- is nothing to re-normalize from. The old columns held the source's codes, and every common value the code
-- derives from them is derived here from the same mapping (code_vocabulary, equal to ingest/vocabulary/*.ts).
-- What the old code never stored cannot be derived: PLACSP's planned start (PlannedPeriod/StartDate) and the raw
-- value of a PLACSP code the old reader rejected; TED's legal basis (which makes a concession), the reason a
-- result closed without winner, and the R2.0.9 original codes. Rows that may lack one keep
-- normalization_version 1 (stale): the writer re-normalizes a stale row from the same upstream version when it
-- is read again (re-import of the archive or package it came from), which completes the migration
-- (docs/vocabulary.md, "Existing rows").

-- 1. The mapping as data: every code of the source lists the stored rows can hold → its common value (NULL: a
--    known code without one). ingest/vocabulary/*.ts is the writer's copy; a test holds the two equal.
CREATE TABLE code_vocabulary (
  source text NOT NULL CHECK (source IN ('placsp', 'ted')),
  field  text NOT NULL CHECK (field IN ('notice', 'procedure', 'contract', 'status', 'result', 'form')),
  code   text NOT NULL,
  value  text,
  PRIMARY KEY (source, field, code)
);

INSERT INTO code_vocabulary (source, field, code, value) VALUES
  -- placsp notice
  ('placsp', 'notice', 'DOC_PIN', 'prior-information'), ('placsp', 'notice', 'DOC_PIN_RTL', 'prior-information'), ('placsp', 'notice', 'DOC_CON', 'market-consultation'),
  ('placsp', 'notice', 'DOC_CN', 'contract-notice'), ('placsp', 'notice', 'DOC_CD', 'contract-notice'), ('placsp', 'notice', 'DOC_DD', 'contract-notice'),
  ('placsp', 'notice', 'DOC_ATPV', 'direct-award-notice'), ('placsp', 'notice', 'DOC_CAN_PROV', 'award-notice'), ('placsp', 'notice', 'DOC_CAN_DEF', 'award-notice'),
  ('placsp', 'notice', 'DOC_CAN_ADJ', 'award-notice'), ('placsp', 'notice', 'DOC_FORM', 'contract-signed'), ('placsp', 'notice', 'DOC_FORM_ENC', 'contract-signed'),
  ('placsp', 'notice', 'PRO_FORM_ENC', 'modification'), ('placsp', 'notice', 'DOC_MOD', 'modification'), ('placsp', 'notice', 'DOC_CCN', 'completion'),
  ('placsp', 'notice', 'DESISTIMIENTO', 'cancellation'), ('placsp', 'notice', 'RENUNCIA', 'cancellation'), ('placsp', 'notice', 'ANUL_PIN', 'cancellation'),
  ('placsp', 'notice', 'ANUL_PIN_RTL', 'cancellation'), ('placsp', 'notice', 'ANUL_DOC_CON', 'cancellation'), ('placsp', 'notice', 'ANUL_CN', 'cancellation'),
  ('placsp', 'notice', 'ANUL_CD', 'cancellation'), ('placsp', 'notice', 'ANUL_DD', 'cancellation'), ('placsp', 'notice', 'ANUL_CAN_ADJ', 'cancellation'),
  ('placsp', 'notice', 'ANUL_FORM', 'cancellation'), ('placsp', 'notice', 'ANUL_FORM_ENC', 'cancellation'), ('placsp', 'notice', 'ANUL_PRO_FORM_ENC', 'cancellation'),
  ('placsp', 'notice', 'ANUL_DOC_MOD', 'cancellation'), ('placsp', 'notice', 'ANUL_CCN', 'cancellation'), ('placsp', 'notice', 'ANUL_DESISTIMIENTO', 'cancellation'),
  ('placsp', 'notice', 'ANUL_RENUNCIA', 'cancellation'),
  -- placsp procedure
  ('placsp', 'procedure', '1', 'open'), ('placsp', 'procedure', '2', 'restricted'), ('placsp', 'procedure', '3', 'neg-wo-call'),
  ('placsp', 'procedure', '4', 'neg-w-call'), ('placsp', 'procedure', '5', 'comp-dial'), ('placsp', 'procedure', '6', 'minor-contract'),
  ('placsp', 'procedure', '7', 'call-off'), ('placsp', 'procedure', '8', 'design-contest'), ('placsp', 'procedure', '9', 'simplified-open'),
  ('placsp', 'procedure', '10', 'innovation'), ('placsp', 'procedure', '11', 'call-off'), ('placsp', 'procedure', '12', 'call-off'),
  ('placsp', 'procedure', '13', 'neg-w-call'), ('placsp', 'procedure', '100', 'internal-rules'), ('placsp', 'procedure', '999', 'other'),
  -- placsp contract
  ('placsp', 'contract', '1', 'supplies'), ('placsp', 'contract', '2', 'services'), ('placsp', 'contract', '3', 'works'),
  ('placsp', 'contract', '7', 'other'), ('placsp', 'contract', '8', 'other'), ('placsp', 'contract', '21', 'concession'),
  ('placsp', 'contract', '22', 'concession'), ('placsp', 'contract', '31', 'concession'), ('placsp', 'contract', '32', 'concession'),
  ('placsp', 'contract', '40', 'other'), ('placsp', 'contract', '50', 'other'),
  -- placsp status
  ('placsp', 'status', 'PRE', 'planned'), ('placsp', 'status', 'PUB', 'open'), ('placsp', 'status', 'EV', 'evaluation'),
  ('placsp', 'status', 'ADJ', 'awarded'), ('placsp', 'status', 'RES', 'resolved'), ('placsp', 'status', 'ANUL', 'cancelled'),
  -- placsp result
  ('placsp', 'result', '1', 'awarded'), ('placsp', 'result', '2', 'awarded'), ('placsp', 'result', '3', 'deserted'),
  ('placsp', 'result', '4', 'withdrawn'), ('placsp', 'result', '5', 'withdrawn'), ('placsp', 'result', '6', 'deserted'),
  ('placsp', 'result', '7', 'deserted'), ('placsp', 'result', '8', 'awarded'), ('placsp', 'result', '9', 'signed'),
  ('placsp', 'result', '10', 'evaluation'), ('placsp', 'result', '11', 'signed'),
  -- ted notice
  ('ted', 'notice', 'pin-only', 'prior-information'), ('ted', 'notice', 'pin-buyer', 'prior-information'), ('ted', 'notice', 'pin-rtl', 'prior-information'),
  ('ted', 'notice', 'pin-tran', 'prior-information'), ('ted', 'notice', 'pmc', 'market-consultation'), ('ted', 'notice', 'cn-standard', 'contract-notice'),
  ('ted', 'notice', 'cn-social', 'contract-notice'), ('ted', 'notice', 'cn-desg', 'contract-notice'), ('ted', 'notice', 'pin-cfc-standard', 'contract-notice'),
  ('ted', 'notice', 'pin-cfc-social', 'contract-notice'), ('ted', 'notice', 'qu-sy', 'contract-notice'), ('ted', 'notice', 'subco', 'contract-notice'),
  ('ted', 'notice', 'veat', 'direct-award-notice'), ('ted', 'notice', 'can-standard', 'award-notice'), ('ted', 'notice', 'can-social', 'award-notice'),
  ('ted', 'notice', 'can-desg', 'award-notice'), ('ted', 'notice', 'can-tran', 'award-notice'), ('ted', 'notice', 'can-modif', 'modification'),
  ('ted', 'notice', 'compl', 'completion'), ('ted', 'notice', 'brin-ecs', NULL), ('ted', 'notice', 'brin-eeig', NULL),
  -- ted form
  ('ted', 'form', 'pin-only', 'planning'), ('ted', 'form', 'pin-buyer', 'planning'), ('ted', 'form', 'pin-rtl', 'planning'),
  ('ted', 'form', 'pin-tran', 'planning'), ('ted', 'form', 'pmc', 'consultation'), ('ted', 'form', 'cn-standard', 'competition'),
  ('ted', 'form', 'cn-social', 'competition'), ('ted', 'form', 'cn-desg', 'competition'), ('ted', 'form', 'pin-cfc-standard', 'competition'),
  ('ted', 'form', 'pin-cfc-social', 'competition'), ('ted', 'form', 'qu-sy', 'competition'), ('ted', 'form', 'subco', 'competition'),
  ('ted', 'form', 'veat', 'dir-awa-pre'), ('ted', 'form', 'can-standard', 'result'), ('ted', 'form', 'can-social', 'result'),
  ('ted', 'form', 'can-desg', 'result'), ('ted', 'form', 'can-tran', 'result'), ('ted', 'form', 'can-modif', 'cont-modif'),
  ('ted', 'form', 'compl', 'completion'), ('ted', 'form', 'brin-ecs', 'bri'), ('ted', 'form', 'brin-eeig', 'bri'),
  -- ted procedure
  ('ted', 'procedure', 'open', 'open'), ('ted', 'procedure', 'restricted', 'restricted'), ('ted', 'procedure', 'neg-w-call', 'neg-w-call'),
  ('ted', 'procedure', 'neg-wo-call', 'neg-wo-call'), ('ted', 'procedure', 'comp-dial', 'comp-dial'), ('ted', 'procedure', 'innovation', 'innovation'),
  ('ted', 'procedure', 'oth-single', 'oth-single'), ('ted', 'procedure', 'oth-mult', 'oth-mult'), ('ted', 'procedure', 'comp-tend', 'comp-tend'),
  ('ted', 'procedure', 'exp-int-rail', 'exp-int-rail'),
  -- ted contract
  ('ted', 'contract', 'works', 'works'), ('ted', 'contract', 'supplies', 'supplies'), ('ted', 'contract', 'services', 'services'),
  -- ted result
  ('ted', 'result', 'selec-w', 'awarded'), ('ted', 'result', 'open-nw', 'evaluation'), ('ted', 'result', 'clos-nw', NULL);

-- 2. New columns.
ALTER TABLE tenders ADD COLUMN source_codes jsonb NOT NULL DEFAULT '{}'::jsonb;
-- 1: normalized by the code before this migration; 2: by the vocabulary mapping. Set by every write.
ALTER TABLE tenders ADD COLUMN normalization_version smallint NOT NULL DEFAULT 1;
ALTER TABLE awards ADD COLUMN start_date_kind text;

-- The migration's own updates must not queue renewal recomputation work the old rows did not need (they change
-- no column the signals read): the buyer x division pairs it marks dirty (migration 0021) are unmarked again at
-- the end.
CREATE TEMP TABLE vocabulary_dirty_before ON COMMIT DROP AS
  SELECT buyer_id, division FROM renewal_signals_dirty_pairs;

-- 3. The codes as published: the old columns held them (TED R2.0.9 ones as their eForms equivalents).
UPDATE tenders
   SET source_codes = jsonb_strip_nulls(jsonb_build_object(
         'notice', notice_type, 'procedure', procedure_type, 'contract', contract_type, 'status', status));

-- 4. Common values. Status: PLACSP folders from their status code, RES (and TED results) from what the results
--    add up to (ingest/vocabulary/placsp.ts outcomeStatus); TED notices from their form type.
WITH outcomes AS (
  SELECT a.tender_id,
         bool_or(a.contract_signed OR r.value = 'signed') AS any_signed,
         bool_or(r.value = 'awarded') AS any_awarded,
         bool_or(r.value = 'evaluation') AS any_evaluation,
         bool_or(r.value = 'withdrawn') AS any_withdrawn,
         count(*) AS results,
         count(r.value) AS known
    FROM awards a
    LEFT JOIN code_vocabulary r ON r.source = a.source AND r.field = 'result' AND r.code = a.result_code
   GROUP BY a.tender_id
),
derived AS (
  SELECT t.id,
         n.value AS notice_type,
         p.value AS procedure_type,
         c.value AS contract_type,
         CASE
           WHEN o.any_signed THEN 'signed'
           WHEN o.any_awarded THEN 'awarded'
           WHEN o.any_evaluation THEN 'evaluation'
           WHEN o.tender_id IS NULL OR o.known = 0 OR o.known < o.results THEN NULL
           WHEN o.any_withdrawn THEN 'cancelled'
           ELSE 'deserted'
         END AS outcome,
         s.value AS folder_status,
         f.value AS form
    FROM tenders t
    LEFT JOIN code_vocabulary n ON n.source = t.source AND n.field = 'notice' AND n.code = t.source_codes->>'notice'
    LEFT JOIN code_vocabulary p
           ON p.source = t.source AND p.field = 'procedure' AND p.code = t.source_codes->>'procedure'
    LEFT JOIN code_vocabulary c
           ON c.source = t.source AND c.field = 'contract' AND c.code = t.source_codes->>'contract'
    LEFT JOIN code_vocabulary s ON s.source = t.source AND s.field = 'status' AND s.code = t.source_codes->>'status'
    LEFT JOIN code_vocabulary f ON f.source = t.source AND f.field = 'form' AND f.code = t.source_codes->>'notice'
    LEFT JOIN outcomes o ON o.tender_id = t.id
)
UPDATE tenders t
   SET notice_type = d.notice_type,
       procedure_type = d.procedure_type,
       contract_type = d.contract_type,
       status = CASE
                  WHEN t.source = 'placsp' AND d.folder_status = 'resolved' THEN d.outcome
                  WHEN t.source = 'placsp' THEN d.folder_status
                  WHEN d.form IN ('planning', 'consultation') THEN 'planned'
                  WHEN d.form = 'competition' THEN 'open'
                  WHEN d.form IN ('result', 'dir-awa-pre') THEN d.outcome
                  WHEN d.form IN ('cont-modif', 'completion') THEN 'signed'
                END
  FROM derived d
 WHERE d.id = t.id;

-- 5. Start dates: the old code read PLACSP's actual start (TenderResult/StartDate) and TED's planned one.
UPDATE awards
   SET start_date_kind = CASE WHEN source = 'placsp' THEN 'actual' ELSE 'planned' END
 WHERE start_date IS NOT NULL;

-- The expiry signals' basis says which start an end derived from start + duration used (rules.ts).
UPDATE renewal_signals s
   SET basis = s.basis || jsonb_build_object('start_date_kind', a.start_date_kind)
  FROM awards a
 WHERE a.id = s.award_id AND s.signal_type IN ('duration_expiry', 'framework_expiry');

-- 6. Rows the SQL above fully re-derived are at version 2. Stale (version 1) stay: every TED row (legal basis,
--    no-winner reasons and R2.0.9 originals were not stored); a PLACSP row with a procedure, contract or status
--    column the old reader left null (absent, or an unknown code it dropped; notice codes were kept as
--    published), or with a non-void award without a start (its planned start was not read).
UPDATE tenders t
   SET normalization_version = 2
 WHERE t.source = 'placsp'
   AND t.source_codes ?& ARRAY['procedure', 'contract', 'status']
   AND NOT EXISTS (
         SELECT 1 FROM awards a
          WHERE a.tender_id = t.id AND a.start_date IS NULL
            AND (a.result_code IS NULL OR a.result_code NOT IN ('3', '4', '5', '6', '7')));
-- A row written from now on is in the vocabulary (the writer sets the version explicitly).
ALTER TABLE tenders ALTER COLUMN normalization_version SET DEFAULT 2;

DELETE FROM renewal_signals_dirty_pairs d
 WHERE NOT EXISTS (
   SELECT 1 FROM vocabulary_dirty_before b WHERE b.buyer_id = d.buyer_id AND b.division = d.division);

-- 7. Only the vocabulary from now on.
ALTER TABLE tenders ADD CONSTRAINT tenders_notice_type_vocabulary CHECK (notice_type IN (
  'prior-information', 'market-consultation', 'contract-notice', 'direct-award-notice', 'award-notice',
  'contract-signed', 'modification', 'completion', 'cancellation'));
ALTER TABLE tenders ADD CONSTRAINT tenders_procedure_type_vocabulary CHECK (procedure_type IN (
  'open', 'restricted', 'neg-w-call', 'neg-wo-call', 'comp-dial', 'innovation', 'oth-single', 'oth-mult',
  'comp-tend', 'exp-int-rail', 'simplified-open', 'minor-contract', 'call-off', 'design-contest', 'internal-rules',
  'other'));
ALTER TABLE tenders ADD CONSTRAINT tenders_contract_type_vocabulary CHECK (contract_type IN (
  'works', 'supplies', 'services', 'concession', 'other'));
ALTER TABLE tenders ADD CONSTRAINT tenders_status_vocabulary CHECK (status IN (
  'planned', 'open', 'evaluation', 'awarded', 'signed', 'cancelled', 'deserted'));
ALTER TABLE tenders ADD CONSTRAINT tenders_source_codes_object CHECK (jsonb_typeof(source_codes) = 'object');
ALTER TABLE awards ADD CONSTRAINT awards_start_date_kind_vocabulary CHECK (start_date_kind IN ('actual', 'planned'));
ALTER TABLE awards ADD CONSTRAINT awards_start_date_kind_with_date CHECK (
  (start_date_kind IS NULL) = (start_date IS NULL));

-- 8. The opportunity window's partial indexes (migration 0017) named the closed PLACSP codes (ADJ, RES, ANUL);
--    closed is now awarded, signed, cancelled or deserted, on both sources. The queries repeat the predicate.
DROP INDEX tenders_open_publication_idx;
DROP INDEX tenders_open_deadline_idx;
CREATE INDEX tenders_open_publication_idx ON tenders (publication_date)
  WHERE deleted_at IS NULL AND linked_to IS NULL
    AND (status IS NULL OR status NOT IN ('awarded', 'signed', 'cancelled', 'deserted'));
CREATE INDEX tenders_open_deadline_idx ON tenders (deadline)
  WHERE deleted_at IS NULL AND linked_to IS NULL
    AND (status IS NULL OR status NOT IN ('awarded', 'signed', 'cancelled', 'deserted'));
