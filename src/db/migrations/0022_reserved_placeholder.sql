-- Placeholder on branch fleet only: migration 0022 is reserved for another branch, and migrations are numbered
-- without gaps. Delete this file when the real 0022 is merged.
SELECT 1;
