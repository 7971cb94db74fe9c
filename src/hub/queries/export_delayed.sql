-- GET /v1/users/{id}/export: up to $2 delayed notifications of user $1
-- (asked for, not released yet), earliest due first.
SELECT id, notification_id, due_at::text AS due_at, request::text AS request,
       request_version, failed_at::text AS failed_at, last_error
FROM chopar.delayed_notifications
WHERE user_id = $1
ORDER BY due_at, id
LIMIT $2
