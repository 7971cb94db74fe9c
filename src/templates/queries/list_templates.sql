-- Every template by type (GET /v1/templates, and what a cache loads), as
-- get_template.sql reads one.
SELECT NULL::text AS tenant, type, category, default_locale, locales::text AS locales,
       coalesce(to_json(tags), '[]')::text AS tags, digest::text AS digest,
       throttle::text AS throttle, escalate::text AS escalate, layout, steps::text AS steps,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.templates
ORDER BY type
