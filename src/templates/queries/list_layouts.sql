-- GET /v1/layouts: tenant $1's own layouts (NULL: the global ones) by key,
-- as get_layout.sql reads one.
SELECT key, tenant, html, text, created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.layouts
WHERE tenant IS NOT DISTINCT FROM $1::text
ORDER BY key
