-- An erasure's batch: up to $2 push subscriptions of user $1.
DELETE FROM chopar.push_subscriptions
WHERE id IN (SELECT id FROM chopar.push_subscriptions WHERE user_id = $1 LIMIT $2)
