-- GET /v1/layouts: tenant $1's own layouts (NULL: the global ones) by key,
-- as get_layout.sql reads one.
-- version: the live version, the newest of its history (template_versions).
SELECT key, tenant, html, text,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'layout' AND v.key = layouts.key AND coalesce(v.tenant, '') = coalesce(layouts.tenant, '')) AS version,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.layouts
WHERE tenant IS NOT DISTINCT FROM $1::text
ORDER BY key
