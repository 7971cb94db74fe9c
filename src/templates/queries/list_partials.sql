-- GET /v1/partials: tenant $1's own partials (NULL: the global ones) by
-- key, as get_partial.sql reads one.
SELECT key, tenant, NULL::text AS html, text, created_at::text AS created_at,
       updated_at::text AS updated_at
FROM chopar.partials
WHERE tenant IS NOT DISTINCT FROM $1::text
ORDER BY key
