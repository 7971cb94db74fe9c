-- Cancels broadcast $1, running or done (a canceled one is left as it is).
-- Waits for a fan-out batch in progress (it holds the row): once this
-- commits, no further batch starts. The walk that stops what the broadcast
-- has not sent yet starts at the last recipient the fan-out reached
-- (`cancel_cursor`, NULL when it reached none); the caller runs its first
-- batch in this transaction, and the fan-out loops, which this wakes at
-- COMMIT, run the rest. A done broadcast keeps its finished_at.
WITH canceled AS (
  UPDATE chopar.broadcasts
  SET status = 'canceled', finished_at = coalesce(finished_at, now()), lease_until = NULL,
      lease_owner = NULL, cancel_cursor = cursor
  WHERE id = $1 AND status IN ('running', 'done')
  RETURNING id, cancel_cursor
)
SELECT c.cancel_cursor, pg_notify('chopar_broadcasts', c.id::text) AS woken FROM canceled c
