-- Retention: up to $2 events dispatched more than $1 days ago, oldest
-- first, skipping rows another relay is deleting.
DELETE FROM chopar.outbox
WHERE id IN (SELECT id FROM chopar.outbox
             WHERE dispatched_at < now() - make_interval(days => $1::int)
             ORDER BY dispatched_at
             LIMIT $2
             FOR UPDATE SKIP LOCKED)
