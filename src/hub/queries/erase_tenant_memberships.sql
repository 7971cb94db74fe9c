-- An erasure's batch: up to $2 tenant memberships of user $1 (last but the
-- users row: a key confined to the tenant follows the erasure until then).
DELETE FROM chopar.user_tenants
WHERE (user_id, tenant) IN (
  SELECT user_id, tenant FROM chopar.user_tenants WHERE user_id = $1 LIMIT $2)
