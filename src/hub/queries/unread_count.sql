-- A user's unread notifications; $2: the tenant's only (NULL: every one).
SELECT count(*) AS count FROM chopar.notifications
WHERE user_id = $1 AND read_at IS NULL AND ($2::text IS NULL OR tenant = $2::text)
