-- A page of the audit log, newest first: $1 resource (NULL: all), $2 actor
-- (NULL: all), $3 since (NULL: from the start), $4 the last id shown
-- (NULL: from the newest), $5 limit, $6 resource_id (NULL: all).
SELECT id, at::text AS at, actor, actor_name, address, request_id, action, resource,
       resource_id, before::text AS before, after::text AS after
FROM chopar.audit_log
WHERE ($1::text IS NULL OR resource = $1)
  AND ($2::text IS NULL OR actor = $2)
  AND ($3::timestamptz IS NULL OR at >= $3)
  AND ($4::bigint IS NULL OR id < $4)
  AND ($6::text IS NULL OR resource_id = $6)
ORDER BY id DESC
LIMIT $5
