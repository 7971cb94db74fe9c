-- PUT /v1/users/{id} with "tenants": user $1 belongs to exactly the tenants
-- of $2 (keys that exist, each once) afterwards.
WITH removed AS (
  DELETE FROM chopar.user_tenants WHERE user_id = $1 AND tenant <> ALL ($2::text[])
)
INSERT INTO chopar.user_tenants (user_id, tenant)
SELECT $1, g.key FROM unnest($2::text[]) AS g(key)
ON CONFLICT (user_id, tenant) DO NOTHING
