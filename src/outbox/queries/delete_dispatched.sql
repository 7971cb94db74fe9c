-- Retention: up to $2 events dispatched more than $1 days ago, found in the
-- old block ranges of outbox_created (an event is dispatched after it is
-- created), skipping rows another relay is deleting.
DELETE FROM chopar.outbox
WHERE event_id IN (SELECT event_id FROM chopar.outbox
                   WHERE created_at < now() - make_interval(days => $1::int)
                     AND dispatched_at < now() - make_interval(days => $1::int)
                   LIMIT $2
                   FOR UPDATE SKIP LOCKED)
