-- Cancels broadcast $1 if it is still running. Waits for a fan-out batch in
-- progress (it holds the row): once this commits, no further batch starts.
-- The queued deliveries of the recipients walked so far (up to `cursor`)
-- are left to cancel_deliveries_batch, run by the fan-out loops, which this
-- wakes at COMMIT.
WITH canceled AS (
  UPDATE chopar.broadcasts
  SET status = 'canceled', finished_at = now(), lease_until = NULL, lease_owner = NULL,
      cancel_cursor = cursor
  WHERE id = $1 AND status = 'running'
  RETURNING id
)
SELECT pg_notify('chopar_broadcasts', id::text) FROM canceled
