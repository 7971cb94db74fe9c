-- An erasure's batch: up to $2 schedules of user $1.
DELETE FROM chopar.schedules
WHERE key IN (SELECT key FROM chopar.schedules WHERE user_id = $1 LIMIT $2)
