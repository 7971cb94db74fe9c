-- Tenant $1's own templates by type (GET /v1/templates?tenant=), or with
-- $1 NULL every tenant's (what a cache loads), as get_template.sql reads one.
-- version: the live version, the newest of its history (template_versions).
SELECT tenant, type, category, default_locale, locales::text AS locales,
       coalesce(to_json(tags), '[]')::text AS tags, digest::text AS digest,
       throttle::text AS throttle, escalate::text AS escalate, layout, steps::text AS steps,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'template' AND v.key = tenant_templates.type AND coalesce(v.tenant, '') = tenant_templates.tenant) AS version,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.tenant_templates
WHERE $1::text IS NULL OR tenant = $1::text
ORDER BY tenant, type
