-- Cancels broadcast $1 if it is still running. Waits for a fan-out batch in
-- progress (it holds the row): once this commits, no further batch starts.
UPDATE chopar.broadcasts
SET status = 'canceled', finished_at = now(), lease_until = NULL, lease_owner = NULL
WHERE id = $1 AND status = 'running'
