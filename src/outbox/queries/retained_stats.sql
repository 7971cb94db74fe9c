-- GET /v1/outbox/stats, beside pending_stats: the events still retained
-- that are dispatched, and the failed attempts of all retained events
-- (every attempt of a pending event, all but the last of a dispatched one),
-- in one pass over the table.
SELECT count(*) FILTER (WHERE dispatched_at IS NOT NULL) AS dispatched,
       COALESCE(sum(attempts - (dispatched_at IS NOT NULL)::int), 0) AS failed_attempts
FROM chopar.outbox
