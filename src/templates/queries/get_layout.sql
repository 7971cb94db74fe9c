-- Layout $1 of tenant $2 (NULL: the global one), as every layout and
-- partial query reads a row.
SELECT key, tenant, html, text, created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.layouts
WHERE key = $1::text AND tenant IS NOT DISTINCT FROM $2::text
