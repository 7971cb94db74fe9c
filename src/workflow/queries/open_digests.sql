-- The open windows of the keys $1 users, $2 types, $3 keys, locked: a
-- window the closer holds is waited for, and once it has closed it is not
-- returned (the status is checked again on the locked row), so nothing
-- joins a window after it was closed. Runs after lock_digest_keys, as its
-- own statement. Served by digests_open. Every row (one with a NULL id when
-- no window is open) also carries `now`, the database's clock read while
-- this notifier holds the keys' advisory locks: later than the time any
-- notifier before it decided its windows at, so a window's times, written
-- in lock order, never run backwards. $4: the windows of workflow runs
-- (digests.workflow), or notify's own.
WITH open AS (
  SELECT d.id, d.user_id, d.type, d.key, d.opened_at, d.closes_at, d.item_count
  FROM chopar.digests d
  JOIN unnest($1::bigint[], $2::text[], $3::text[]) AS x(user_id, type, key)
    ON d.user_id = x.user_id AND d.type = x.type AND d.key = x.key
  WHERE d.status = 'open' AND d.workflow = $4::boolean
  FOR UPDATE OF d
)
SELECT o.id, o.user_id, o.type, o.key, o.opened_at::text AS opened_at,
       o.closes_at::text AS closes_at, o.item_count, clock_timestamp()::text AS now
FROM (SELECT) AS one
LEFT JOIN open o ON true
ORDER BY o.closes_at
