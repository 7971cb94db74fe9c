-- Subscribes users $2 (bigint[]) to topic $1, idempotently. Nothing is
-- written when the topic is missing (topic_exists false; with $3, a key
-- confined to tenant $3: also a topic of another tenant or of none) or a
-- user is unknown or, for a tenant's topic, not a member of that tenant
-- (missing_user: the smallest such id). `added` counts new subscriptions.
WITH ids AS (
  SELECT DISTINCT x AS id FROM unnest($2::bigint[]) AS x
), topic AS (
  SELECT t.tenant FROM chopar.topics t
  WHERE t.key = $1 AND ($3::text IS NULL OR t.tenant = $3::text)
), missing AS (
  SELECT min(i.id) AS id FROM ids i
  WHERE NOT EXISTS (SELECT 1 FROM chopar.users u WHERE u.id = i.id AND NOT u.erasing)
     OR EXISTS (SELECT 1 FROM topic t
                WHERE t.tenant IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM chopar.user_tenants m
                                  WHERE m.user_id = i.id AND m.tenant = t.tenant))
), added AS (
  INSERT INTO chopar.topic_subscribers (topic, user_id)
  SELECT $1, i.id FROM ids i
  WHERE EXISTS (SELECT 1 FROM topic) AND (SELECT id FROM missing) IS NULL
  ORDER BY i.id
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM topic) AS topic_exists,
       (SELECT id FROM missing) AS missing_user,
       (SELECT count(*) FROM added) AS added
