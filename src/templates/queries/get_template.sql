-- One template by type: its columns, which the cache and GET parse as its
-- PUT body was parsed.
SELECT NULL::text AS tenant, type, category, default_locale, locales::text AS locales,
       coalesce(to_json(tags), '[]')::text AS tags, digest::text AS digest,
       throttle::text AS throttle, escalate::text AS escalate, layout, steps::text AS steps,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.templates
WHERE type = $1
