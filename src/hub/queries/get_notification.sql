-- A notification by id: the columns hub::ReadNotification reads.
SELECT n.id, n.user_id, n.type, n.title, n.body, n.link, n.data::text AS data, n.critical,
       n.dedup_key, n.tenant, n.created_at::text AS created_at, n.read_at::text AS read_at
FROM chopar.notifications n
WHERE n.id = $1
