-- GET /v1/users/{id}/export: up to $2 topics user $1 is subscribed to, in
-- key order.
SELECT t.key, t.name, t.tenant, s.created_at::text AS subscribed_at
FROM chopar.topic_subscribers s
JOIN chopar.topics t ON t.key = s.topic
WHERE s.user_id = $1
ORDER BY t.key
LIMIT $2
