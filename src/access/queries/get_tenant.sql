SELECT key, name, branding::text AS branding, preferences::text AS preferences,
       created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.tenants WHERE key = $1
