-- Unsubscribes users $2 (bigint[]) from topic $1. `removed` counts the
-- subscriptions that existed; topic_exists is false for an unknown topic.
WITH removed AS (
  DELETE FROM chopar.topic_subscribers
  WHERE topic = $1 AND user_id = ANY($2::bigint[])
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM chopar.topics WHERE key = $1) AS topic_exists,
       (SELECT count(*) FROM removed) AS removed
