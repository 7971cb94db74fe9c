-- PUT /v1/templates/{type}: create or replace, and tell every process's
-- cache (NOTIFY chopar_templates, payload: the type; sent at COMMIT).
-- $1 type, $2 category, $3 default_locale, $4 locales, $5 digest,
-- $6 throttle, $7 escalate (jsonb or NULL), $8 tags (text[] or NULL), $9
-- layout (a layout's key or NULL), $10 steps (jsonb or NULL).
WITH stored AS (
  INSERT INTO chopar.templates AS t (type, category, default_locale, locales, digest, throttle, escalate, tags, layout, steps)
  VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8::text[], $9::text, $10::jsonb)
  ON CONFLICT (type) DO UPDATE SET
    category = EXCLUDED.category, default_locale = EXCLUDED.default_locale, locales = EXCLUDED.locales,
    digest = EXCLUDED.digest, throttle = EXCLUDED.throttle, escalate = EXCLUDED.escalate, tags = EXCLUDED.tags,
    layout = EXCLUDED.layout, steps = EXCLUDED.steps,
    updated_at = now()
  RETURNING t.type
)
SELECT type, pg_notify('chopar_templates', type) FROM stored
