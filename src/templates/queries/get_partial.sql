-- Partial $1 of tenant $2 (NULL: the global one), as get_layout.sql reads a
-- layout (html NULL).
-- version: the live version, the newest of its history (template_versions).
SELECT key, tenant, NULL::text AS html, text,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'partial' AND v.key = partials.key AND coalesce(v.tenant, '') = coalesce(partials.tenant, '')) AS version,
       created_at::text AS created_at,
       updated_at::text AS updated_at
FROM chopar.partials
WHERE key = $1::text AND tenant IS NOT DISTINCT FROM $2::text
