-- GET …/versions: $1 kind, $2 key, $3 tenant's versions below $4 (NULL:
-- from the newest), newest first, at most $5; and the newest of all.
SELECT v.version, v.created_at::text AS created_at, v.created_by,
       (SELECT max(n.version) FROM chopar.template_versions n
        WHERE n.kind = $1::text AND n.key = $2::text
          AND coalesce(n.tenant, '') = coalesce($3::text, '')) AS newest
FROM chopar.template_versions v
WHERE v.kind = $1::text AND v.key = $2::text AND coalesce(v.tenant, '') = coalesce($3::text, '')
  AND ($4::integer IS NULL OR v.version < $4::integer)
ORDER BY v.version DESC
LIMIT $5
