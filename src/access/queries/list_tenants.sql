-- A page of tenants in key order: $1 the last key shown (NULL: from the
-- first), $2 limit.
SELECT key, name, branding::text AS branding, preferences::text AS preferences,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.tenants
WHERE $1::text IS NULL OR key > $1
ORDER BY key
LIMIT $2
