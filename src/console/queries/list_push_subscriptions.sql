-- A user's Web Push subscriptions, oldest first (the keys stay private).
SELECT id, endpoint, created_at::text AS created_at
FROM chopar.push_subscriptions
WHERE user_id = $1
ORDER BY id
