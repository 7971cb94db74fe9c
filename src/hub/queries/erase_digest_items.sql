-- An erasure's batch: up to $2 items of the digests of user $1.
DELETE FROM chopar.digest_items
WHERE (digest_id, notification_id) IN (
  SELECT i.digest_id, i.notification_id
  FROM chopar.digests d JOIN chopar.digest_items i ON i.digest_id = d.id
  WHERE d.user_id = $1
  LIMIT $2)
