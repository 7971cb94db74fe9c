-- An erasure's batch: up to $2 topic subscriptions of user $1.
DELETE FROM chopar.topic_subscribers
WHERE (topic, user_id) IN (
  SELECT topic, user_id FROM chopar.topic_subscribers WHERE user_id = $1 LIMIT $2)
