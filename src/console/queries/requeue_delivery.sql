-- An operator's retry (POST /v1/deliveries/{id}/retry): the delivery is
-- queued again, due now by the database's clock, its attempts reset, and the
-- workers are woken (NOTIFY chopar_deliveries, sent at COMMIT). A delivery
-- that is sent or being sent never changes here. A delivery older than the
-- horizon of active deliveries (migration 0037) lowers it to its created_at
-- in this statement, so no claim leaves its partition out. The row is
-- updated whatever it holds: an advance in progress holds its lock, and
-- this waits for it and lowers what it moved to (a WHERE on the old value
-- would have been decided before the advance and skipped the row).
WITH requeued AS (
  UPDATE chopar.deliveries
  SET status = 'queued', attempts = 0, next_attempt_at = now(), lease_until = NULL,
      claim_token = NULL, updated_at = now()
  WHERE id = $1 AND status NOT IN ('sent', 'sending')
  RETURNING id, created_at
), lowered AS (
  -- Run whether or not the query below reads it, as every data-modifying CTE.
  UPDATE chopar.delivery_horizon h
  SET active_from = least(h.active_from, r.created_at)
  FROM requeued r
)
SELECT id, pg_notify('chopar_deliveries', '') FROM requeued
