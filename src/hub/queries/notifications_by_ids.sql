-- User $1's notifications among the ids $2 (others' are left out), by id:
-- what a stream sends with the items that come back from a snooze.
SELECT n.id, n.user_id, n.type, n.title, n.body, n.link, n.data::text AS data, n.critical,
       n.dedup_key, n.tenant, n.category, coalesce(to_json(n.tags), '[]')::text AS tags,
       coalesce(n.actions, '[]')::text AS actions, n.created_at::text AS created_at,
       n.seen_at::text AS seen_at, n.read_at::text AS read_at,
       n.archived_at::text AS archived_at, n.snoozed_until::text AS snoozed_until
FROM chopar.notifications n
WHERE n.user_id = $1 AND n.id = ANY ($2::bigint[])
ORDER BY n.id
