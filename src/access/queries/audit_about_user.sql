-- GET /v1/users/{id}/export: up to $2 audit rows about user $1 or a row of
-- theirs (chopar.audit_subject, migration 0044), newest first.
SELECT id, at::text AS at, actor, actor_name, address, request_id, action, resource,
       resource_id, before::text AS before, after::text AS after
FROM chopar.audit_log
WHERE chopar.audit_subject(resource, resource_id, before, after) = 'user:' || $1::bigint
ORDER BY id DESC
LIMIT $2
