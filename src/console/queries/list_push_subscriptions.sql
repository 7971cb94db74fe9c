-- A user's Web Push subscriptions, oldest first (the keys stay private).
SELECT json_build_object('id', id, 'endpoint', endpoint,
                         'created_at', chopar.api_time(created_at))::text AS doc
FROM chopar.push_subscriptions
WHERE user_id = $1
ORDER BY id
