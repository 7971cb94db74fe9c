-- Milliseconds from $1 (NULL: the database's now()) until a claim could
-- find work: the next due queued row or the next lease to run out
-- (negative when that is already past). NULL when there is nothing pending.
SELECT extract(epoch FROM least((SELECT min(next_attempt_at) FROM chopar.deliveries WHERE status = 'queued'),
                                (SELECT min(lease_until) FROM chopar.deliveries WHERE status = 'sending'))
                          - coalesce($1::timestamptz, now())) * 1000 AS wait_ms
