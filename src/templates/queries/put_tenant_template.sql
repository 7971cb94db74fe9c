-- PUT /v1/templates/{type}?tenant=: create or replace tenant $1's own
-- template of type $2 ($3 category, $4 default_locale, $5 locales, $6
-- digest, $7 throttle, $8 escalate, $9 tags, $10 layout, $11 steps); no row when there is no such tenant.
-- The table's trigger tells every process's cache (NOTIFY chopar_templates
-- '<tenant>/<type>', sent at COMMIT).
INSERT INTO chopar.tenant_templates AS t (tenant, type, category, default_locale, locales, digest,
                                         throttle, escalate, tags, layout, steps)
SELECT $1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb, $9::text[], $10::text, $11::jsonb
WHERE EXISTS (SELECT 1 FROM chopar.tenants WHERE key = $1)
ON CONFLICT (tenant, type) DO UPDATE SET
  category = EXCLUDED.category, default_locale = EXCLUDED.default_locale, locales = EXCLUDED.locales,
  digest = EXCLUDED.digest, throttle = EXCLUDED.throttle, escalate = EXCLUDED.escalate, tags = EXCLUDED.tags,
  layout = EXCLUDED.layout, steps = EXCLUDED.steps,
  updated_at = now()
RETURNING t.type
