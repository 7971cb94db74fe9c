-- Creates or replaces a tenant: $1 key, $2 name, $3 branding, $4 default
-- preferences. xmax = 0 tells a new row from a replaced one.
INSERT INTO chopar.tenants AS t (key, name, branding, preferences)
VALUES ($1, $2, $3::jsonb, $4::jsonb)
ON CONFLICT (key) DO UPDATE
  SET name = EXCLUDED.name, branding = EXCLUDED.branding, preferences = EXCLUDED.preferences,
      updated_at = greatest(now(), t.created_at)
RETURNING key, name, branding::text AS branding, preferences::text AS preferences,
          created_at::text AS created_at, updated_at::text AS updated_at, (xmax = 0) AS created
