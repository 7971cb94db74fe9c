-- GET /v1/partials: tenant $1's own partials (NULL: the global ones) by
-- key, as get_partial.sql reads one.
-- version: the live version, the newest of its history (template_versions).
SELECT key, tenant, NULL::text AS html, text,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'partial' AND v.key = partials.key AND coalesce(v.tenant, '') = coalesce(partials.tenant, '')) AS version,
       created_at::text AS created_at,
       updated_at::text AS updated_at
FROM chopar.partials
WHERE tenant IS NOT DISTINCT FROM $1::text
ORDER BY key
