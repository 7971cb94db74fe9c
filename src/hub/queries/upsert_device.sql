-- A device ($1 user, $2 platform, $3 token, $4 app). The same token again
-- keeps its id and takes the new platform and app; a token another user has
-- moves to this user when $5 (the server key's route), and is left as it is
-- otherwise: then no row comes back (the token is another user's).
INSERT INTO chopar.devices AS v (user_id, platform, token, app)
VALUES ($1, $2, $3, $4)
ON CONFLICT (token) DO UPDATE
  SET user_id = EXCLUDED.user_id, platform = EXCLUDED.platform, app = EXCLUDED.app,
      updated_at = now()
  WHERE v.user_id = EXCLUDED.user_id OR $5::boolean
RETURNING id, platform, token, app, created_at::text AS created_at, updated_at::text AS updated_at,
          (xmax = 0) AS created
