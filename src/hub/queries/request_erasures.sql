-- DELETE /v1/users/{id}, POST /v1/users/erase: marks the users $1 (bigint[])
-- that exist, are not being erased already and, with $2 (a confined key's
-- tenant; NULL: any), belong to that tenant, and records their erasures;
-- a user erased before and created again is erased again. The mark makes
-- the user invisible at once (every query that reads users leaves out
-- `erasing` rows) and the new token generation refuses its subscriber
-- tokens. Wakes the erasure loops at commit.
WITH marked AS (
  UPDATE chopar.users u SET erasing = true, token_generation = u.token_generation + 1
  WHERE u.id = ANY ($1::bigint[]) AND NOT u.erasing
    AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM chopar.user_tenants m
                                     WHERE m.user_id = u.id AND m.tenant = $2::text))
  RETURNING u.id
)
INSERT INTO chopar.user_erasures AS e (user_id)
SELECT id FROM marked
ON CONFLICT (user_id) DO UPDATE SET requested_at = now(), completed_at = NULL
RETURNING e.user_id, pg_notify('chopar_erasures', '') IS NULL AS woken
