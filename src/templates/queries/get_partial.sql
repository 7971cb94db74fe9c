-- Partial $1 of tenant $2 (NULL: the global one), as get_layout.sql reads a
-- layout (html NULL).
SELECT key, tenant, NULL::text AS html, text, created_at::text AS created_at,
       updated_at::text AS updated_at
FROM chopar.partials
WHERE key = $1::text AND tenant IS NOT DISTINCT FROM $2::text
