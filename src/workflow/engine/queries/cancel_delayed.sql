-- Cancels delayed notifications by key: they never appear. $1 key, $2 user
-- (NULL: every user's). Served by delayed_notifications_cancellation.
DELETE FROM chopar.delayed_notifications
WHERE cancellation_key = $1 AND ($2::bigint IS NULL OR user_id = $2::bigint)
RETURNING id
