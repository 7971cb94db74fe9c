-- The same endpoint again keeps its id; a browser that another user now uses
-- moves to that user with fresh keys when $5 (the server key's route), and
-- is left as it is otherwise: then no row comes back (the endpoint is
-- another user's).
INSERT INTO chopar.push_subscriptions AS p (user_id, endpoint, p256dh, auth)
VALUES ($1, $2, $3, $4)
ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth
  WHERE p.user_id = EXCLUDED.user_id OR $5::boolean
RETURNING id, (xmax = 0) AS created
