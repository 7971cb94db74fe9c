-- Unsubscribes users $2 (bigint[]) from topic $1. `removed` counts the
-- subscriptions that existed; topic_exists is false for an unknown topic
-- (with $3, a key confined to tenant $3: also for a topic of another tenant
-- or of none, and nothing is removed).
WITH topic AS (
  SELECT 1 FROM chopar.topics WHERE key = $1 AND ($3::text IS NULL OR tenant = $3::text)
), removed AS (
  DELETE FROM chopar.topic_subscribers
  WHERE topic = $1 AND user_id = ANY($2::bigint[]) AND EXISTS (SELECT 1 FROM topic)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM topic) AS topic_exists,
       (SELECT count(*) FROM removed) AS removed
