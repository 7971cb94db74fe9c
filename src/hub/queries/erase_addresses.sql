-- An erasure's batch: up to $2 addresses of user $1 (registered channels).
DELETE FROM chopar.user_addresses
WHERE (user_id, channel) IN (
  SELECT user_id, channel FROM chopar.user_addresses WHERE user_id = $1 LIMIT $2)
