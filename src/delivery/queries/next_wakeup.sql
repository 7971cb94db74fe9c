-- plan: generic
-- Milliseconds from $1 (NULL: the database's now()) until a claim could
-- find work: the next due queued row or the next lease to run out
-- (negative when that is already past). NULL when there is nothing pending.
-- Each is the first entry of a partial index (deliveries_due,
-- deliveries_leased), read through a merge of the partitions' indexes:
-- planned by index (db::Plan::kGeneric), no plan of this shape
-- aggregates every queued row, whatever the statistics (a min() can be
-- planned as such an aggregate when they say no row is queued).
-- $2: the horizon of active deliveries the worker knows (claim_candidates.sql):
-- the weeks before it are left out; `horizon` is the row as this statement
-- saw it.
SELECT extract(epoch FROM least((SELECT d.next_attempt_at
                                 FROM chopar.deliveries d
                                 WHERE d.status = 'queued' AND d.created_at >= $2::timestamptz
                                 ORDER BY d.next_attempt_at
                                 LIMIT 1),
                                (SELECT d.lease_until
                                 FROM chopar.deliveries d
                                 WHERE d.status = 'sending' AND d.created_at >= $2::timestamptz
                                 ORDER BY d.lease_until
                                 LIMIT 1))
                          - coalesce($1::timestamptz, now())) * 1000 AS wait_ms,
       (SELECT h.active_from::text FROM chopar.delivery_horizon h) AS horizon
