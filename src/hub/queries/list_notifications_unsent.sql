-- What an inbox stream has not sent yet: the user's notifications after id
-- $2, and those created at or after $4 (NULL: none) whose id, smaller, is not
-- among the ids $5 it sent. A transaction that drew a smaller id can commit
-- after a larger one was sent — a scheduler's firing written ahead of its
-- instant, a long batch — and would be passed over by the id alone.
SELECT n.id, n.user_id, n.type, n.title, n.body, n.link, n.data::text AS data, n.critical,
       n.dedup_key, n.tenant, n.category, coalesce(to_json(n.tags), '[]')::text AS tags,
       coalesce(n.actions, '[]')::text AS actions, n.created_at::text AS created_at,
       n.seen_at::text AS seen_at, n.read_at::text AS read_at,
       n.archived_at::text AS archived_at, n.snoozed_until::text AS snoozed_until
FROM chopar.notifications n
WHERE n.user_id = $1
  AND (n.id > $2 OR (n.created_at >= $4::timestamptz AND n.id <> ALL ($5::bigint[])))
ORDER BY n.id
LIMIT $3
