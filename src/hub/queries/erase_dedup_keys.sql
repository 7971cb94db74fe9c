-- An erasure's batch: up to $2 dedup keys of user $1's notifications.
DELETE FROM chopar.notification_dedup
WHERE (user_id, dedup_key) IN (
  SELECT user_id, dedup_key FROM chopar.notification_dedup WHERE user_id = $1 LIMIT $2)
