-- Locks one broadcast with work left for a batch by process $1: running and
-- due, or canceled with queued deliveries left to cancel (cancel_cursor);
-- and not leased to another process (its lease ran out, or it is ours).
-- Rows another batch holds are skipped, never waited for.
-- `deliveries_due_at` comes back as the due time of this batch's deliveries
-- (never in the past); `due_now` whether that is now (the previous batch's
-- deliveries are due already).
SELECT b.id, b.topic, b.audience_where::text AS audience_where, b.notification::text AS notification, b.notification_version,
       b.cursor, b.status, b.cancel_cursor, greatest(b.deliveries_due_at, now())::text AS deliveries_due_at,
       coalesce(b.deliveries_due_at <= now(), true) AS due_now
FROM chopar.broadcasts b
WHERE ((b.status = 'running' AND b.due_at <= now()) OR b.cancel_cursor IS NOT NULL)
  AND (b.lease_until IS NULL OR b.lease_until < now() OR b.lease_owner = $1)
ORDER BY b.due_at, b.id
LIMIT 1
FOR UPDATE SKIP LOCKED
