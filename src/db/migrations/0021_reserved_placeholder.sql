-- Placeholder on branch fleet only: migration 0021 is reserved for another branch, and migrations are numbered
-- without gaps. Delete this file when the real 0021 is merged.
SELECT 1;
