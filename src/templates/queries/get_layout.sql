-- Layout $1 of tenant $2 (NULL: the global one), as every layout and
-- partial query reads a row.
-- version: the live version, the newest of its history (template_versions).
SELECT key, tenant, html, text,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'layout' AND v.key = layouts.key AND coalesce(v.tenant, '') = coalesce(layouts.tenant, '')) AS version,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.layouts
WHERE key = $1::text AND tenant IS NOT DISTINCT FROM $2::text
