-- Forgets up to $1 dedup keys of notifications retention dropped: the keys
-- dated before every partition of notifications left (none while the
-- partition of the rows from before the conversion, which starts at
-- -infinity, is kept), oldest first through notification_dedup_created. A
-- key is thus remembered as long as its notification is kept. Returns one
-- row per key forgotten.
WITH kept AS (
  SELECT min(p.lower_bound) AS since
  FROM chopar.history_partitions('chopar.notifications'::regclass) p
)
DELETE FROM chopar.notification_dedup k
WHERE (k.user_id, k.dedup_key) IN (
  SELECT e.user_id, e.dedup_key
  FROM chopar.notification_dedup e, kept
  WHERE e.created_at < kept.since
  ORDER BY e.created_at
  LIMIT $1::int)
RETURNING 1
