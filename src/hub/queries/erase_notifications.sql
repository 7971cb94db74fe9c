-- An erasure's batch: up to $2 notifications of user $1.
DELETE FROM chopar.notifications
WHERE (id, created_at) IN (
  SELECT id, created_at FROM chopar.notifications WHERE user_id = $1 LIMIT $2)
