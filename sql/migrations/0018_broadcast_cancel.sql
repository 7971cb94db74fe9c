-- Canceling a broadcast also ends its deliveries not yet sent (docs/api.md
-- "Topics and broadcasts"), in batches by the fan-out loops rather than in
-- one UPDATE that would hold the rows of a million recipients at once:
-- `cancel_cursor` is the highest recipient whose queued deliveries are still
-- to be canceled (the walk goes down from where the fan-out stopped); NULL
-- when none are left. A catalog-only change: no rewrite.
ALTER TABLE chopar.broadcasts ADD COLUMN IF NOT EXISTS cancel_cursor bigint;
