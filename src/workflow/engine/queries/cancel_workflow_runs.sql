-- Stops the steps left of the workflow runs of the notifications with key
-- $1 (of user $2; NULL: every user's): `canceled`, with the cancel as the
-- last entry of their outcomes. A run an advancer holds is waited for. Its
-- queued delivery is canceled by cancel_deliveries.sql after this, in the
-- same transaction. Served by notifications_cancellation and the runs'
-- primary key.
UPDATE chopar.workflow_runs r
SET status = 'canceled', waits_on = NULL, due_at = NULL, updated_at = now(),
    outcomes = r.outcomes || jsonb_build_array(jsonb_build_object(
      'index', r.step, 'type', NULL, 'outcome', 'canceled', 'channel', NULL, 'delivery_id', NULL,
      'at', chopar.api_time(now()), 'until', NULL, 'detail', 'canceled by its cancellation key'))
FROM chopar.notifications n
WHERE n.cancellation_key = $1 AND ($2::bigint IS NULL OR n.user_id = $2::bigint)
  AND r.notification_id = n.id AND r.status IN ('active', 'waiting')
RETURNING r.notification_id
