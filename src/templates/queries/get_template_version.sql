-- GET …/versions/{n}: version $4 of $1 kind, $2 key, $3 tenant.
SELECT version, created_at::text AS created_at, created_by, document::text AS document
FROM chopar.template_versions
WHERE kind = $1::text AND key = $2::text AND coalesce(tenant, '') = coalesce($3::text, '')
  AND version = $4::integer
