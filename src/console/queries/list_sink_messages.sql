-- What the sink channels "sent", newest first (GET /v1/sink/messages), with
-- optional filters $1 channel and $2 user; $4 is the keyset cursor (an id).
SELECT m.id, m.delivery_id, d.notification_id, m.channel, m.user_id, m.address, m.subject,
       m.body, m.html, m.created_at::text AS created_at
FROM chopar.sink_messages m
LEFT JOIN chopar.deliveries d ON d.id = m.delivery_id
WHERE ($1::text IS NULL OR m.channel = $1)
  AND ($2::bigint IS NULL OR m.user_id = $2)
  AND m.id < $4
ORDER BY m.id DESC
LIMIT $3
