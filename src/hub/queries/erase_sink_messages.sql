-- An erasure's batch: up to $2 sink messages to user $1 (bodies and
-- addresses).
DELETE FROM chopar.sink_messages
WHERE (id, created_at) IN (
  SELECT id, created_at FROM chopar.sink_messages WHERE user_id = $1 LIMIT $2)
