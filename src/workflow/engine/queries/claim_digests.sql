-- Locks up to $2 digest windows due at $1 ($1 NULL: the database's now()),
-- earliest first, skipping windows another closer or a notifier holds: one
-- range scan of digests_due. Returns the instant used as `now`, and
-- whether the window is workflow runs' (its runs are woken, nothing queued).
SELECT d.id, d.user_id, d.type, d.workflow, coalesce($1::timestamptz, now())::text AS now
FROM chopar.digests d
WHERE d.status = 'open' AND d.closes_at <= coalesce($1::timestamptz, now())
ORDER BY d.closes_at
LIMIT $2::int
FOR UPDATE SKIP LOCKED
