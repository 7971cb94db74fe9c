-- An erasure's batch: up to $2 digest windows of user $1 (their items and
-- deliveries are gone already).
DELETE FROM chopar.digests
WHERE id IN (SELECT id FROM chopar.digests WHERE user_id = $1 LIMIT $2)
