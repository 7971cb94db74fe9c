-- Tenant $1's own templates by type (GET /v1/templates?tenant=), or with
-- $1 NULL every tenant's (what a cache loads), as get_template.sql reads one.
SELECT tenant, type, category, default_locale, locales::text AS locales,
       coalesce(to_json(tags), '[]')::text AS tags, digest::text AS digest,
       throttle::text AS throttle, escalate::text AS escalate, layout, steps::text AS steps,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.tenant_templates
WHERE $1::text IS NULL OR tenant = $1::text
ORDER BY tenant, type
