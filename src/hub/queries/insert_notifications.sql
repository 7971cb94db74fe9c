-- Creates a batch of notifications and their deliveries in one statement.
-- $1: JSON array of {idx, id, user_id, type, title, body, link, data,
-- dedup_key, critical, channels}; $2: now. Returns one row per input: whether
-- it was created, and the id (the existing one for a repeated dedup key; NULL
-- when the duplicate is another row of this same batch).
WITH input AS (
  SELECT *
  FROM jsonb_to_recordset($1::jsonb)
    AS x(idx int, id bigint, user_id bigint, type text, title text, body text, link text,
         data jsonb, dedup_key text, critical boolean, channels text[])
), inserted AS (
  INSERT INTO notifications (id, user_id, type, title, body, link, data, dedup_key, critical, created_at)
  OVERRIDING SYSTEM VALUE
  SELECT id, user_id, type, title, body, link, data, dedup_key, critical, $2::timestamptz
  FROM input
  ORDER BY idx
  ON CONFLICT (user_id, dedup_key) DO NOTHING
  RETURNING id
), queued AS (
  INSERT INTO deliveries (notification_id, user_id, channel, next_attempt_at, created_at, updated_at)
  SELECT i.id, i.user_id, c.channel, $2::timestamptz, $2::timestamptz, $2::timestamptz
  FROM inserted n
  JOIN input i ON i.id = n.id
  CROSS JOIN LATERAL unnest(i.channels) AS c(channel)
  RETURNING 1
)
-- The existing row of a repeated key is looked up only for rows not inserted,
-- through the (user_id, dedup_key) unique index.
SELECT i.idx, n.id IS NOT NULL AS created,
       coalesce(n.id, (SELECT e.id FROM notifications e
                       WHERE e.user_id = i.user_id AND e.dedup_key = i.dedup_key)) AS id,
       (SELECT count(*) FROM queued) AS deliveries
FROM input i
LEFT JOIN inserted n ON n.id = i.id
ORDER BY i.idx
