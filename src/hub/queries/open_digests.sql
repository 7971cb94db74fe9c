-- The open windows of the keys $1 users, $2 types, $3 keys, locked: a
-- window the closer holds is waited for, and once it has closed it is not
-- returned (the status is checked again on the locked row), so nothing
-- joins a window after it was closed. Runs after lock_digest_keys, as its
-- own statement. Served by digests_open.
SELECT d.id, d.user_id, d.type, d.key, d.opened_at::text AS opened_at,
       d.closes_at::text AS closes_at, d.item_count
FROM chopar.digests d
JOIN unnest($1::bigint[], $2::text[], $3::text[]) AS x(user_id, type, key)
  ON d.user_id = x.user_id AND d.type = x.type AND d.key = x.key
WHERE d.status = 'open'
ORDER BY d.closes_at
FOR UPDATE OF d
