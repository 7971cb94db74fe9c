-- Cancels delayed notifications by key: they never appear, and the dedup
-- keys they reserved are free again. $1 key, $2 user (NULL: every user's).
-- Served by delayed_notifications_cancellation.
WITH canceled AS (
  DELETE FROM chopar.delayed_notifications
  WHERE cancellation_key = $1 AND ($2::bigint IS NULL OR user_id = $2::bigint)
  RETURNING id, user_id, dedup_key, notification_id
), freed AS (
  DELETE FROM chopar.notification_dedup k
  USING canceled c
  WHERE k.user_id = c.user_id AND k.dedup_key = c.dedup_key AND k.notification_id = c.notification_id
  RETURNING 1
)
SELECT c.id, (SELECT count(*) FROM freed) AS freed FROM canceled c
