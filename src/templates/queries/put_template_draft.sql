-- PUT …/draft: creates or replaces the draft of $1 kind, $2 key, $3 tenant
-- (NULL: global) with document $4; no row when there is no such tenant.
INSERT INTO chopar.template_drafts AS d (kind, key, tenant, document, updated_by)
SELECT $1::text, $2::text, $3::text, $4::jsonb,
       nullif(pg_catalog.current_setting('chopar.actor', true), '')::jsonb ->> 'actor'
WHERE $3::text IS NULL OR EXISTS (SELECT 1 FROM chopar.tenants WHERE key = $3::text)
ON CONFLICT (kind, key, (coalesce(tenant, ''))) DO UPDATE SET
  document = EXCLUDED.document, updated_at = now(), updated_by = EXCLUDED.updated_by
RETURNING d.document::text AS document, d.created_at::text AS created_at,
          d.updated_at::text AS updated_at, d.updated_by
