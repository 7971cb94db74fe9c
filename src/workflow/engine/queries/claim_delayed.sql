-- Locks up to $2 delayed notifications due at $1 ($1 NULL: the database's
-- now()), earliest first, skipping rows another releaser holds and rows
-- marked failed: one range scan of delayed_notifications_waiting. Returns
-- the instant used as `now`.
SELECT d.id, d.notification_id, d.request::text AS request, d.request_version,
       coalesce($1::timestamptz, now())::text AS now
FROM chopar.delayed_notifications d
WHERE d.due_at <= coalesce($1::timestamptz, now()) AND d.failed_at IS NULL
ORDER BY d.due_at
LIMIT $2::int
FOR UPDATE SKIP LOCKED
