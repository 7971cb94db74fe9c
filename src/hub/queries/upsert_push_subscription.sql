-- The same endpoint again keeps its id; a browser that another user now uses
-- moves to that user with fresh keys.
INSERT INTO chopar.push_subscriptions AS p (user_id, endpoint, p256dh, auth)
VALUES ($1, $2, $3, $4)
ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth
RETURNING id, (xmax = 0) AS created
