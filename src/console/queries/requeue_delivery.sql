-- An operator's retry (POST /v1/deliveries/{id}/retry): the delivery is
-- queued again, due now by the database's clock, its attempts reset, and the
-- workers are woken (NOTIFY chopar_deliveries, sent at COMMIT). A delivery
-- that is sent or being sent never changes here.
WITH requeued AS (
  UPDATE chopar.deliveries
  SET status = 'queued', attempts = 0, next_attempt_at = now(), lease_until = NULL,
      claim_token = NULL, updated_at = now()
  WHERE id = $1 AND status NOT IN ('sent', 'sending')
  RETURNING id
)
SELECT id, pg_notify('chopar_deliveries', '') FROM requeued
