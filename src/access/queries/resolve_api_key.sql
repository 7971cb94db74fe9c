-- The key in force whose SHA-256 has the hex $1, marked used (last_used_at
-- moves at most once a minute, so a busy key does not write on every call).
WITH found AS (
  SELECT id, name, prefix, scopes, tenant, expires_at, created_at, last_used_at
  FROM chopar.api_keys
  WHERE key_hash = decode($1, 'hex') AND (expires_at IS NULL OR expires_at > now())
), touched AS (
  UPDATE chopar.api_keys k SET last_used_at = now()
  FROM found
  WHERE k.id = found.id AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')
  RETURNING k.id
)
SELECT id, name, prefix, array_to_string(scopes, ',') AS scopes, tenant,
       expires_at::text AS expires_at, created_at::text AS created_at,
       COALESCE((SELECT now() FROM touched), last_used_at)::text AS last_used_at
FROM found
