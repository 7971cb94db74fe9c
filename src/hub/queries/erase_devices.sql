-- An erasure's batch: up to $2 devices of user $1.
DELETE FROM chopar.devices
WHERE id IN (SELECT id FROM chopar.devices WHERE user_id = $1 LIMIT $2)
