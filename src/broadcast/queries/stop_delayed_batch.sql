-- The first statement of one batch of the walk that stops a canceled
-- broadcast's pieces not yet sent: the $3 highest recipients at or below
-- user id $2 that hold dedup key $1 (a backward range scan of
-- notification_dedup's primary key; a delayed notification reserves its key
-- there too). Their delayed notifications are deleted (they never appear)
-- and the keys those reserved freed. A releaser holding one is waited for:
-- once it has committed, the notification it created is the second
-- statement's (stop_deliveries_batch.sql, a later snapshot). Returns the
-- notification id and user of each recipient walked, highest first, with
-- the number of delayed notifications deleted on every row.
WITH walked AS MATERIALIZED (
  SELECT n.notification_id AS id, n.user_id
  FROM chopar.notification_dedup n
  WHERE n.user_id <= $2::bigint AND n.dedup_key = $1::text
  ORDER BY n.user_id DESC
  LIMIT $3::int
), delayed AS (
  DELETE FROM chopar.delayed_notifications d
  USING walked w
  WHERE d.notification_id = w.id
  RETURNING d.user_id, d.dedup_key, d.notification_id
), freed AS (
  DELETE FROM chopar.notification_dedup k
  USING delayed c
  WHERE k.user_id = c.user_id AND k.dedup_key = c.dedup_key AND k.notification_id = c.notification_id
  RETURNING 1
)
SELECT w.id, w.user_id, (SELECT count(*) FROM delayed) AS delayed,
       (SELECT count(*) FROM freed) AS freed
FROM walked w
ORDER BY w.user_id DESC
