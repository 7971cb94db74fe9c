-- DELETE /v1/layouts/{key}: layout $1 of tenant $2 (NULL: the global one),
-- unless a template would then name a layout it cannot find: for the
-- global layout, a global template naming it or a tenant's own template
-- naming it in a tenant without a layout of that key; for a tenant's,
-- that tenant's own templates naming it when there is no global layout of
-- the key to fall back on. One row: found (0 or 1), deleted (0 or 1) and,
-- when refused, up to five of the templates that use it. The table's
-- trigger tells the caches.
WITH target AS (
  SELECT key, tenant FROM chopar.layouts
  WHERE key = $1::text AND tenant IS NOT DISTINCT FROM $2::text
  FOR UPDATE
), users AS (
  (SELECT 'template ' || t.type AS used_by FROM chopar.templates t
   WHERE $2::text IS NULL AND t.layout = $1::text
   ORDER BY t.type LIMIT 5)
  UNION ALL
  (SELECT 'template ' || tt.type || ' of tenant ' || tt.tenant FROM chopar.tenant_templates tt
   WHERE tt.layout = $1::text
     AND CASE WHEN $2::text IS NULL
              THEN NOT EXISTS (SELECT 1 FROM chopar.layouts o WHERE o.key = $1::text AND o.tenant = tt.tenant)
              ELSE tt.tenant = $2::text
                   AND NOT EXISTS (SELECT 1 FROM chopar.layouts g WHERE g.key = $1::text AND g.tenant IS NULL)
         END
   ORDER BY tt.tenant, tt.type LIMIT 5)
), deleted AS (
  DELETE FROM chopar.layouts l USING target
  WHERE l.key = target.key AND l.tenant IS NOT DISTINCT FROM target.tenant
    AND NOT EXISTS (SELECT 1 FROM users)
  RETURNING l.key
)
SELECT (SELECT count(*) FROM target) AS found, (SELECT count(*) FROM deleted) AS deleted,
       (SELECT string_agg(used_by, ', ') FROM (SELECT used_by FROM users LIMIT 5) u) AS used_by
