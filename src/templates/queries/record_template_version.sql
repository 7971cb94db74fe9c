-- Appends the next version of $1 kind, $2 key, $3 tenant (NULL: global):
-- document $4, by the audit log's actor of the transaction (none: NULL);
-- then forgets the versions $5 or more below it (the history's bound).
-- Run after the statement that writes the live row, in its transaction
-- (templates/versions.hpp RecordVersion: why the numbers never collide).
WITH added AS (
  INSERT INTO chopar.template_versions (kind, key, tenant, version, document, created_by)
  SELECT $1::text, $2::text, $3::text, coalesce(max(v.version), 0) + 1, $4::jsonb,
         nullif(pg_catalog.current_setting('chopar.actor', true), '')::jsonb ->> 'actor'
  FROM chopar.template_versions v
  WHERE v.kind = $1::text AND v.key = $2::text AND coalesce(v.tenant, '') = coalesce($3::text, '')
  RETURNING version
)
DELETE FROM chopar.template_versions v
USING added
WHERE v.kind = $1::text AND v.key = $2::text AND coalesce(v.tenant, '') = coalesce($3::text, '')
  AND v.version <= added.version - $5::integer
