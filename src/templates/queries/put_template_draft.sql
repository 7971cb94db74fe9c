-- PUT …/draft: creates or replaces the draft of $1 kind, $2 key, $3 tenant
-- (NULL: global) with document $4, unless the tenant does not exist or
-- its scope (the kind's drafts of that tenant, or the global ones) holds
-- $5 others already. One row: whether the tenant exists, and the draft
-- (NULL columns when it was not stored).
WITH scope AS (
  SELECT $3::text IS NULL OR EXISTS (SELECT 1 FROM chopar.tenants WHERE key = $3::text) AS tenant_exists,
         (SELECT count(*) FROM chopar.template_drafts
          WHERE kind = $1::text AND coalesce(tenant, '') = coalesce($3::text, '')
            AND key <> $2::text) AS others
), stored AS (
  INSERT INTO chopar.template_drafts AS d (kind, key, tenant, document, updated_by)
  SELECT $1::text, $2::text, $3::text, $4::jsonb,
         nullif(pg_catalog.current_setting('chopar.actor', true), '')::jsonb ->> 'actor'
  FROM scope
  WHERE scope.tenant_exists AND scope.others < $5::integer
  ON CONFLICT (kind, key, (coalesce(tenant, ''))) DO UPDATE SET
    document = EXCLUDED.document, updated_at = now(), updated_by = EXCLUDED.updated_by
  RETURNING d.document::text AS document, d.created_at::text AS created_at,
            d.updated_at::text AS updated_at, d.updated_by
)
SELECT scope.tenant_exists, stored.document, stored.created_at, stored.updated_at,
       stored.updated_by
FROM scope LEFT JOIN stored ON true
