-- Every template by type (GET /v1/templates, and what a cache loads), as
-- get_template.sql reads one.
-- version: the live version, the newest of its history (template_versions).
SELECT NULL::text AS tenant, type, category, default_locale, locales::text AS locales,
       coalesce(to_json(tags), '[]')::text AS tags, digest::text AS digest,
       throttle::text AS throttle, escalate::text AS escalate, layout, steps::text AS steps,
       (SELECT max(v.version) FROM chopar.template_versions v
        WHERE v.kind = 'template' AND v.key = templates.type AND coalesce(v.tenant, '') = '') AS version,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.templates
ORDER BY type
