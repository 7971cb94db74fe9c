-- Tenant $1's own template of type $2, as get_template.sql reads a global one.
-- version: the live version, the newest of its history (template_versions).
SELECT tenant, type, category, default_locale, locales::text AS locales,
       coalesce(to_json(tags), '[]')::text AS tags, digest::text AS digest,
       throttle::text AS throttle, escalate::text AS escalate, layout, steps::text AS steps,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'template' AND v.key = tenant_templates.type AND coalesce(v.tenant, '') = tenant_templates.tenant) AS version,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.tenant_templates
WHERE tenant = $1 AND type = $2
