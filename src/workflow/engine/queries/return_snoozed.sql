-- Brings back up to $2 notifications whose snooze ended at $1 ($1 NULL: the
-- database's now()), earliest first: clears snoozed_until, read_at and
-- seen_at (the item comes back unread and unseen). The due rows are locked
-- with SKIP LOCKED, so returners running at once take different rows; a row
-- another one returned meanwhile no longer matches when its lock is
-- granted (snoozed_until is NULL), so each comes back once. One range scan
-- of each partition's notifications_snoozed index. Returns each row's id,
-- its user and the transaction's time as the API writes it, by user.
WITH due AS (
  SELECT n.id, n.created_at
  FROM chopar.notifications n
  WHERE n.snoozed_until <= coalesce($1::timestamptz, now())
  ORDER BY n.snoozed_until
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
)
UPDATE chopar.notifications n
SET snoozed_until = NULL, read_at = NULL, seen_at = NULL
FROM due
WHERE n.id = due.id AND n.created_at = due.created_at
RETURNING n.id, n.user_id, chopar.api_time(now()) AS at
