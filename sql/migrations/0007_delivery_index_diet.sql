-- Fewer index entries per delivery write. Every status change of a delivery
-- is a non-HOT update (status is in index predicates), so each one adds an
-- entry to every index whose predicate the new row matches; index upkeep was
-- the largest share of PostgreSQL's CPU on the delivery path.
--
-- deliveries_notification: UNIQUE (notification_id, channel) already leads
-- with notification_id and serves every lookup by notification.
DROP INDEX IF EXISTS chopar.deliveries_notification;

-- deliveries_status: filtering the deliveries list by status only needs an
-- index for the rare final statuses. `queued` and `sending` have their own
-- partial indexes (deliveries_due, deliveries_leased), and `sent` is most
-- rows, found by walking the primary key.
DROP INDEX IF EXISTS chopar.deliveries_status;
CREATE INDEX deliveries_problems ON chopar.deliveries (status, id DESC)
  WHERE status IN ('failed', 'skipped');
