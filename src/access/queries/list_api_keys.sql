-- A page of API keys, newest first: $1 the last id shown (NULL: from the
-- newest), $2 limit.
SELECT id, name, prefix, array_to_string(scopes, ',') AS scopes, tenant,
       expires_at::text AS expires_at, created_at::text AS created_at,
       last_used_at::text AS last_used_at
FROM chopar.api_keys
WHERE $1::bigint IS NULL OR id < $1
ORDER BY id DESC
LIMIT $2
