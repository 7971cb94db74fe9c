-- Whether a template of tenant $2 (NULL: a global template) may name layout
-- $1: a global template a global layout, a tenant's template the tenant's
-- own or a global one.
SELECT EXISTS (
  SELECT 1 FROM chopar.layouts
  WHERE key = $1::text AND (tenant IS NULL OR tenant = $2::text)
) AS found
