-- GET /v1/users/{id}/export: up to $3 ids of user $1's notifications, in
-- every inbox state, newest id first, before id $2 (NULL: from the newest).
SELECT id FROM chopar.notifications
WHERE user_id = $1 AND ($2::bigint IS NULL OR id < $2)
ORDER BY id DESC
LIMIT $3
