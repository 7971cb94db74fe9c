-- Subscribes users $2 (bigint[]) to topic $1, idempotently. Nothing is
-- written when the topic is missing (topic_exists false) or a user is unknown
-- (missing_user: the smallest unknown id). `added` counts new subscriptions.
WITH ids AS (
  SELECT DISTINCT x AS id FROM unnest($2::bigint[]) AS x
), missing AS (
  SELECT min(i.id) AS id FROM ids i
  WHERE NOT EXISTS (SELECT 1 FROM chopar.users u WHERE u.id = i.id)
), topic AS (
  SELECT EXISTS (SELECT 1 FROM chopar.topics WHERE key = $1) AS found
), added AS (
  INSERT INTO chopar.topic_subscribers (topic, user_id)
  SELECT $1, i.id FROM ids i
  WHERE (SELECT found FROM topic) AND (SELECT id FROM missing) IS NULL
  ORDER BY i.id
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT (SELECT found FROM topic) AS topic_exists,
       (SELECT id FROM missing) AS missing_user,
       (SELECT count(*) FROM added) AS added
