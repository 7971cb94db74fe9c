-- Appends the next version of $1 kind, $2 key, $3 tenant (NULL: global):
-- document $4, by the audit log's actor of the transaction (none: NULL).
-- Run after the statement that writes the live row, in its transaction
-- (templates/versions.hpp RecordVersion: why the numbers never collide).
INSERT INTO chopar.template_versions (kind, key, tenant, version, document, created_by)
SELECT $1::text, $2::text, $3::text, coalesce(max(v.version), 0) + 1, $4::jsonb,
       nullif(pg_catalog.current_setting('chopar.actor', true), '')::jsonb ->> 'actor'
FROM chopar.template_versions v
WHERE v.kind = $1::text AND v.key = $2::text AND coalesce(v.tenant, '') = coalesce($3::text, '')
RETURNING version
