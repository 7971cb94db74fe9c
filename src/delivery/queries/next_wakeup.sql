-- The earliest instant a claim could find work: the next due queued row or
-- the next lease to run out. NULL when there is nothing pending.
SELECT least((SELECT min(next_attempt_at) FROM chopar.deliveries WHERE status = 'queued'),
             (SELECT min(lease_until) FROM chopar.deliveries WHERE status = 'sending'))::text AS at
