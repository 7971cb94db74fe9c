-- What the sink channels "sent", newest first (GET /v1/sink/messages), with
-- optional filters $1 channel and $2 user; $4 is the keyset cursor (an id).
SELECT m.id,
       json_build_object('id', m.id, 'delivery_id', m.delivery_id,
                         'notification_id', d.notification_id, 'channel', m.channel,
                         'user_id', m.user_id, 'address', m.address, 'title', m.subject,
                         'body', m.body, 'html', m.html,
                         'created_at', chopar.api_time(m.created_at))::text AS doc
FROM chopar.sink_messages m
LEFT JOIN chopar.deliveries d ON d.id = m.delivery_id
WHERE ($1::text IS NULL OR m.channel = $1)
  AND ($2::bigint IS NULL OR m.user_id = $2)
  AND m.id < $4
ORDER BY m.id DESC
LIMIT $3
