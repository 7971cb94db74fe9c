-- An erasure's batch: up to $2 deliveries of user $1 (partitioned: by the
-- partition key too), before the sink messages a claim may still write.
DELETE FROM chopar.deliveries
WHERE (id, created_at) IN (
  SELECT id, created_at FROM chopar.deliveries WHERE user_id = $1 LIMIT $2)
