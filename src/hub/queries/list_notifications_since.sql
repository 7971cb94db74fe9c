-- What an inbox stream has not sent yet: the user's notifications after id $2.
SELECT n.id, n.user_id, n.type, n.title, n.body, n.link, n.data::text AS data, n.critical,
       n.dedup_key, n.created_at::text AS created_at, n.read_at::text AS read_at
FROM chopar.notifications n
WHERE n.user_id = $1 AND n.id > $2
ORDER BY n.id
LIMIT $3
