-- A new API key: $1 name, $2 prefix, $3 the hex of its SHA-256, $4 scopes
-- (array literal), $5 tenant (NULL: none), $6 expires_at (NULL: never).
INSERT INTO chopar.api_keys (name, prefix, key_hash, scopes, tenant, expires_at)
VALUES ($1, $2, decode($3, 'hex'), $4::text[], $5, $6::timestamptz)
RETURNING id, name, prefix, array_to_string(scopes, ',') AS scopes, tenant,
          expires_at::text AS expires_at, created_at::text AS created_at,
          last_used_at::text AS last_used_at
