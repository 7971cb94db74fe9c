-- Creates a broadcast ($1 topic or NULL for every user, $2 the notification
-- in hub's stored-request form, $3 that form's version, $4 the request's
-- dedup key or NULL, $5 the audience filter "where" or NULL) and wakes the
-- fan-out loops
-- at COMMIT; a repeated dedup key returns the existing broadcast instead
-- (created false). topic_exists is false for an unknown topic (nothing
-- inserted).
WITH topic AS (
  SELECT $1::text IS NULL OR EXISTS (SELECT 1 FROM chopar.topics WHERE key = $1) AS found
), inserted AS (
  INSERT INTO chopar.broadcasts (topic, audience, notification, notification_version, dedup_key,
                                 audience_where)
  SELECT $1, CASE WHEN $1::text IS NULL THEN 'all' ELSE 'topic' END, $2::jsonb, $3::smallint, $4,
         $5::jsonb
  WHERE (SELECT found FROM topic)
  ON CONFLICT (dedup_key) DO NOTHING
  RETURNING id
), woken AS (
  SELECT pg_notify('chopar_broadcasts', id::text) FROM inserted
)
SELECT (SELECT found FROM topic) AS topic_exists,
       EXISTS (SELECT 1 FROM inserted) AS created,
       coalesce((SELECT id FROM inserted),
                (SELECT b.id FROM chopar.broadcasts b WHERE b.dedup_key = $4)) AS id,
       (SELECT count(*) FROM woken) AS woken
